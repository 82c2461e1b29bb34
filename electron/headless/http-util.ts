/**
 * The headless host's own node:http pieces: its security headers and its refusal envelope.
 * Body reading and JSON writing are the core's (electron/core/http), shared with the sandbox.
 */
import type { ServerResponse } from 'node:http';
import type { Envelope, ErrorCode } from '../contract';
import { MAX_BODY_BYTES, readBody } from '../core/http/body';
import { HttpError } from '../core/http/http-error';
import { CONTENT_SECURITY_POLICY } from '../core/http/renderer-policy';
import { sendJson } from '../core/http/respond';

export { CONTENT_SECURITY_POLICY, HttpError, MAX_BODY_BYTES, readBody, sendJson };

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
