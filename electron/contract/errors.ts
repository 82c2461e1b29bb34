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
  /**
   * A key held elsewhere could not sign: its signing command was not found, failed, timed out,
   * or returned a signature that is empty, of the wrong length or does not verify
   * (DESIGN.md "Keys held elsewhere"). Details: {@link ExternalSignerDetails}.
   */
  'SIGNER_FAILED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One schema problem: where (the path into the argument) and what. */
export interface IssueData {
  path: string[];
  message: string;
}

/**
 * What every BAD_ARGUMENT carries (issue 25 item 4): the argument at fault as a dotted path
 * into the method's input ("bank_auth_url", "jwk.n", "behaviours.user_auth.omit_field"), so a
 * form puts the message under that field and the CLI names that flag, without reading the
 * message. The contract's own validation also lists every schema issue.
 */
export interface BadArgumentDetails {
  field: string;
  issues?: IssueData[];
}

/** Why a key held elsewhere did not sign, one reason per failure the issue names (issue 29 item 4). */
export type SignerFailure = 'not_found' | 'exit' | 'timeout' | 'empty' | 'length' | 'verify' | 'spawn';

/** What every SIGNER_FAILED carries: the key, the command's program, and why. */
export interface ExternalSignerDetails {
  kid: string;
  command: string;
  reason: SignerFailure;
}

/** The details a code must carry; a code not listed here carries any details, or none. */
export interface ErrorDetailsByCode {
  BAD_ARGUMENT: BadArgumentDetails;
  SIGNER_FAILED: ExternalSignerDetails;
}

/** The constructor's details argument for code `C`: required and typed where the code fixes it. */
type DetailsArgument<C extends ErrorCode> = C extends keyof ErrorDetailsByCode
  ? [details: ErrorDetailsByCode[C]]
  : [details?: unknown];

export interface ErrorData {
  code: ErrorCode;
  message: string;
  /** Optional structured context, e.g. the field a validation error names ({@link BadArgumentDetails}). */
  details?: unknown;
}

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorData };

/**
 * An error with a code a person (and a program) can act on. The type of `details` follows the
 * code: `new ConsoleError('BAD_ARGUMENT', message)` without `{ field }` does not compile.
 *
 * @example
 * throw new ConsoleError('NOT_FOUND', 'no key with kid "k1"');
 * throw new ConsoleError('BAD_ARGUMENT', 'kid: must not be empty', { field: 'kid' });
 */
export class ConsoleError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(code: C, message: string, ...[details]: DetailsArgument<C>) {
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

/**
 * The one way to refuse an argument: BAD_ARGUMENT naming its field (a dotted path into the
 * method's input).
 *
 * @example
 * throw badArgument('a new environment needs a name (e.g. "Staging")', 'name');
 */
export function badArgument(message: string, field: string, issues?: IssueData[]): ConsoleError {
  return new ConsoleError('BAD_ARGUMENT', message, issues === undefined ? { field } : { field, issues });
}

/**
 * The field a refusal names: `details.field` of a BAD_ARGUMENT (as it arrives from any host, a
 * ConsoleError or plain error data), else null.
 *
 * @example
 * errorField(badArgument('kid: already exists', 'kid')); // 'kid'
 */
export function errorField(err: unknown): string | null {
  if (!err || typeof err !== 'object') return null;
  const { code, details } = err as { code?: unknown; details?: unknown };
  if (code !== 'BAD_ARGUMENT' || !details || typeof details !== 'object') return null;
  const field = (details as { field?: unknown }).field;
  return typeof field === 'string' && field !== '' ? field : null;
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
