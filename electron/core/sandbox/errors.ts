/**
 * How the sandbox's failures look on the wire. The operations (onboard, register a JWK, sign
 * in, …) throw ConsoleErrors with the console's codes, the same errors the ConsoleApi carries;
 * the HTTP routes turn them into a status and `{"error":"<code>","detail":"…"}` (DESIGN.md
 * "Sandbox service"). HTTP-level refusals (413, 415, malformed JSON, 405) come as HttpErrors.
 */
import { ConsoleError, type ErrorCode } from '../../contract/errors';
import { HttpError } from '../http';

export type WireCode =
  | 'unauthorized'
  | 'bad_request'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'bank_unreachable'
  | 'internal';

export interface WireError {
  status: number;
  body: { error: string; detail: string; check?: string };
  headers: Record<string, string>;
}

const BY_CODE: Partial<Record<ErrorCode, { status: number; error: WireCode }>> = {
  UNAUTHORIZED: { status: 401, error: 'unauthorized' },
  BAD_ARGUMENT: { status: 400, error: 'bad_request' },
  KEY_INVALID: { status: 400, error: 'bad_request' },
  TOKEN_MALFORMED: { status: 400, error: 'bad_request' },
  NOT_FOUND: { status: 404, error: 'not_found' },
  CONFLICT: { status: 409, error: 'conflict' },
};

/** The status, body and headers for anything a route threw. */
export function toWireError(err: unknown): WireError {
  if (err instanceof HttpError) {
    return { status: err.status, body: { error: err.code, detail: err.message }, headers: err.headers };
  }
  if (err instanceof ConsoleError) {
    const mapped = BY_CODE[err.code];
    if (mapped) {
      // A refused token names the engine's failed check, as the bank endpoints' 401 does.
      const check = (err.details as { check?: unknown } | undefined)?.check;
      const body =
        typeof check === 'string'
          ? { error: mapped.error, check, detail: err.message }
          : { error: mapped.error, detail: err.message };
      return { status: mapped.status, body, headers: {} };
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: { error: 'internal', detail: `the sandbox failed: ${message}` }, headers: {} };
}

export const unauthorized = (detail: string, check?: string) =>
  new ConsoleError('UNAUTHORIZED', detail, check === undefined ? undefined : { check });
export const badRequest = (detail: string, field?: string) =>
  new ConsoleError('BAD_ARGUMENT', detail, field === undefined ? undefined : { field });
export const notFound = (detail: string) => new ConsoleError('NOT_FOUND', detail);
export const conflict = (detail: string) => new ConsoleError('CONFLICT', detail);
