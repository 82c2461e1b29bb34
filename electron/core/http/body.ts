/**
 * Reading request bodies on node:http servers without trusting the client: a size cap enforced
 * both on the declared Content-Length and on the bytes that actually arrive (chunked bodies
 * have no declared size), the content type checked before parsing, and JSON parse errors
 * reported with the parser's own words.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error';

/** Bodies above this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

function tooLarge(limit: number): HttpError {
  // Connection: close, so a client still sending a huge body is not kept reading it.
  return new HttpError(413, 'payload_too_large', `the request body is larger than ${limit} bytes (1 MiB)`, {
    Connection: 'close',
  });
}

/**
 * Reads a request body up to `limit` bytes. A declared or actual size above it rejects with a
 * 413 HttpError; the rest of the body is then drained and dropped, never buffered.
 *
 * @example
 * const bytes = await readBody(req); // Buffer, at most 1 MiB
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    if (req.destroyed) {
      // Gone before its handler ran (a listener handles a turn's requests after the turn's
      // reads, listener.ts turnBatched): its 'close' has passed, so nothing would settle this.
      reject(new Error('the client went away before its request was read'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        req.off('data', onData);
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      reject(err);
    };
    req.on('error', fail);
    // 'close' comes after every request, read or not: an Error (and its stack) only when it matters.
    req.on('close', () => {
      if (!done) fail(new Error('the client went away before sending the whole body'));
    });
  });
}

/** True when a Content-Type header names JSON (`application/json`, any parameters). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json';
}

/**
 * Reads and parses a JSON request body: Content-Type must be application/json (415 otherwise),
 * at most `limit` bytes (413), valid UTF-8 JSON (400 `bad_request` naming the parse error).
 *
 * @example
 * const body = await readJsonBody(req); // unknown: validate it next
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const type = req.headers['content-type'];
  if (!isJsonContentType(type)) {
    // Still refuse an oversized body as such, without reading it.
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    req.resume();
    throw new HttpError(
      415,
      'unsupported_media_type',
      type
        ? `Content-Type is ${JSON.stringify(type)}; this endpoint takes application/json`
        : 'no Content-Type header; this endpoint takes a JSON body with Content-Type application/json',
    );
  }
  const bytes = await readBody(req, limit);
  if (bytes.length === 0) {
    throw new HttpError(400, 'bad_request', 'the body is empty; this endpoint takes a JSON object');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'bad_request', 'the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new HttpError(400, 'bad_request', `the body is not valid JSON: ${why}`);
  }
}

/**
 * For routes that take no body: refuses a declared oversized one (413) and lets the rest drain.
 */
export function discardBody(req: IncomingMessage, limit = MAX_BODY_BYTES): void {
  const declared = Number(req.headers['content-length']);
  req.resume();
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
}
