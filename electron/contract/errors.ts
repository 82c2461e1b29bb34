/**
 * Errors travel as data with a string code (STYLE.md 8): only an Error's message survives
 * `ipcMain.handle`, so every host turns failures into `{ ok: false, error: { code, message } }`.
 */
export const ERROR_CODES = [
  'BAD_ARGUMENT',
  'UNKNOWN_METHOD',
  'INTERNAL',
  'NOT_FOUND',
  'CONFLICT',
  'TOKEN_MALFORMED',
  'KEY_INVALID',
  'JWKS_FETCH_FAILED',
  'JWKS_INVALID',
  'KEYCHAIN_UNAVAILABLE',
  'VAULT_LOCKED',
  'VAULT_PASSPHRASE_WRONG',
  'VAULT_DAMAGED',
  /** A keychain vault whose key is not in this machine's keychain (deleted, another machine). */
  'VAULT_KEY_MISSING',
  'STATE_DAMAGED',
  'SERVICE_UNREACHABLE',
  'SERVICE_REFUSED',
  'UNAUTHORIZED',
  'FORBIDDEN',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorData {
  code: ErrorCode;
  message: string;
  /** Optional structured context, e.g. the field a validation error names. */
  details?: unknown;
}

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorData };

/** An error with a code a person (and a program) can act on. */
export class ConsoleError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'ConsoleError';
    this.code = code;
    this.details = details;
  }

  toData(): ErrorData {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static fromData(data: ErrorData): ConsoleError {
    return new ConsoleError(data.code, data.message, data.details);
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Turns anything thrown into error data, keeping codes of ConsoleErrors. */
export function toErrorData(err: unknown): ErrorData {
  if (err instanceof ConsoleError) return err.toData();
  if (err && typeof err === 'object' && 'code' in err && isErrorCode((err as { code: unknown }).code)) {
    const e = err as { code: ErrorCode; message?: unknown };
    return { code: e.code, message: String(e.message ?? e.code) };
  }
  return { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}
