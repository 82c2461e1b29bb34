/** Writing JSON responses on node:http servers. */
import type { ServerResponse } from 'node:http';

/**
 * Sends `body` as JSON with an exact Content-Length and no caching. Does nothing when the
 * response has already been sent or the client is gone.
 *
 * @example
 * sendJson(res, 200, { session_token });
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extraHeaders,
  });
  res.end(text);
}
