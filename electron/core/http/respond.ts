/** Writing JSON responses on node:http servers. */
import type { ServerResponse } from 'node:http';
import { jsonReply, sendReply } from './reply';

/**
 * Sends `body` as JSON with an exact Content-Length and no caching (reply.ts's jsonReply).
 * Does nothing when the response has already been sent or the client is gone.
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
  sendReply(res, jsonReply(status, body, { headers: extraHeaders }));
}
