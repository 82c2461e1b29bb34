/** Small node:http helpers shared by the headless host's routes: headers, JSON, bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Envelope, ErrorCode } from '../contract';

/** JSON bodies above this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The page's Content-Security-Policy: only this origin's own scripts, styles and connections,
 * no plugins, no framing, no form posts, no `<base>` tricks. Sent on every response.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** Headers on every response, whatever it is. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  // Other origins (other local servers included) may neither embed nor read what this serves.
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...extraHeaders,
  });
  res.end(text);
}

/** A refusal before the core: `{ok:false,error:{code,message}}` with an HTTP status. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  extraHeaders: Record<string, string> = {},
): void {
  const envelope: Envelope<never> = { ok: false, error: { code, message } };
  sendJson(res, status, envelope, extraHeaders);
}

export class BodyTooLarge extends Error {
  constructor() {
    super(`request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
}

/**
 * Reads a request body up to `limit` bytes. A declared or actual size above it rejects with
 * BodyTooLarge; the rest of the body is then drained and dropped, not buffered.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(new BodyTooLarge());
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
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks));
    });
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      reject(err);
    };
    req.on('error', fail);
    req.on('close', () => fail(new Error('the client went away before sending the whole body')));
  });
}
