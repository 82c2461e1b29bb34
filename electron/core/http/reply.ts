/**
 * A reply: what a listener of the core answers, as one value (issue 25: one `Reply` for the whole
 * core). Routes return it (router.ts), the bank's callbacks and notifications build it, and
 * {@link sendReply} writes it. It carries the text as sent and, apart from it, the body as
 * recorded: a customer's secret `key` leaves the process only in the answer, never in an event
 * (DESIGN.md "Bank endpoints"; the bank's threat model in bank/bank.ts).
 */
import type { ServerResponse } from 'node:http';

/** One answer on the wire, and how it is recorded. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** The body as sent. */
  text: string;
  /**
   * The body as recorded (secrets masked): computed when the event is built, after the answer
   * is written, so masking costs the request nothing.
   */
  recorded: () => string | null;
  /** The headers as sent, Content-Length included, when made with the reply (else sendReply adds it). */
  wire?: Record<string, string>;
  /** The value `text` is the JSON of, when the core built it: judged as it is (bank/callback-verdict.ts). */
  value?: unknown;
}

/** How a secret key is recorded: its length only. */
export const maskedKey = (key: string): string => `<masked: ${[...key].length} characters>`;

/** A reply's headers as they go on the wire: its own, and the Content-Length of its text. */
export const wireHeaders = (headers: Record<string, string>, text: string): Record<string, string> => ({
  ...headers,
  'Content-Length': String(Buffer.byteLength(text)),
});

/** The headers of every JSON answer: no caching, no sniffing. */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
});

const hasStringKey = (value: unknown): value is { key: string } =>
  value !== null && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string';

/**
 * `body` as JSON. With `maskKey`, a string `key` member is recorded as its length only (the
 * answer keeps it: spec 2.5, the callbacks' `key`).
 *
 * @example
 * sendReply(res, jsonReply(200, { key: customer.key }, { maskKey: true }));
 */
export function jsonReply(
  status: number,
  body: unknown,
  options: { maskKey?: boolean; headers?: Record<string, string> } = {},
): Reply {
  const text = JSON.stringify(body);
  let masking: string | undefined;
  const recorded =
    options.maskKey === true && hasStringKey(body)
      ? () => (masking ??= JSON.stringify({ ...body, key: maskedKey(body.key) }))
      : () => text;
  const headers = options.headers ? { ...JSON_HEADERS, ...options.headers } : { ...JSON_HEADERS };
  return { status, headers, text, recorded, wire: wireHeaders(headers, text), value: body };
}

/**
 * The core's error body, `{"error":"<code>","detail":"…"}` (DESIGN.md: the bank's and the
 * sandbox's refusals).
 *
 * @example
 * sendReply(res, errorReply(405, 'method_not_allowed', '/key takes GET (spec 4.2)', { Allow: 'GET' }));
 */
export function errorReply(
  status: number,
  error: string,
  detail: string,
  headers: Record<string, string> = {},
): Reply {
  return jsonReply(status, { error, detail }, { headers });
}

/** An answer with no body (a notification's 200, spec 4.3). */
export function emptyReply(status: number): Reply {
  return { status, headers: {}, text: '', recorded: () => null };
}

/**
 * A text someone else wrote (forward mode's backend), recorded with a JSON body's string `key`
 * masked; anything else is recorded as it is.
 *
 * @example
 * recordedText('{"key":"s3cret"}') // '{"key":"<masked: 6 characters>"}'
 */
export function recordedText(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (hasStringKey(value)) return JSON.stringify({ ...value, key: maskedKey(value.key) });
  } catch {
    // not JSON: recorded as it is
  }
  return text;
}

/**
 * Writes a reply. Does nothing when the response has already been sent or the client is gone.
 *
 * @example
 * sendReply(res, jsonReply(200, { session_token }));
 */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, reply.wire ?? wireHeaders(reply.headers, reply.text));
  res.end(reply.text);
}
