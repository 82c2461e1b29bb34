/**
 * `dets-console keys generate|list|export|import|delete` (DESIGN.md "Command line"; the flags and
 * the --json shapes are fixed: scripts and CI drive them). Every call goes through the core's
 * dispatch, so arguments are validated by the contract exactly as for the UI; a refused
 * argument exits 2 with a one-line reason naming the flag, a vault that cannot open exits 1
 * with the vault's own words.
 *
 * Secrets: a private key only travels from FILE (or stdin) into the core, which seals it; no
 * command prints private material. A passphrase vault is unlocked from DETS_VAULT_PASSPHRASE
 * or, on a terminal, by a prompt without echo; never from a flag (flags end up in shell
 * history and `ps`).
 */
import { promises as fs } from 'node:fs';
import type { KeyInfo, VaultStatus } from '../../contract/schemas/keys';
import type { ErrorData } from '../../contract/errors';
import { createConsoleCore, type ConsoleCore } from '../../core/console-core';
import { keyListRows } from '../../core/service';
import { type DatabaseHold, holdForOneShotWrite, recoveryWaitLine } from '../../core/store/owner';
import {
  EXIT,
  UsageError,
  dataDirFlag,
  parseFlags,
  promptHidden,
  readProcessStdin,
  stdinIsTTY,
  type CliIo,
} from '../io';
import { KEYS_DELETE, KEYS_EXPORT, KEYS_GENERATE, KEYS_IMPORT, KEYS_LIST } from '../table';

// --------------------------------------------------------------------- shared with `jwt sign`

/** A core failure that is not the user's input: runCli prints "CODE: message" and exits 1. */
export class CoreFailure extends Error {
  readonly code: string;
  constructor(error: ErrorData) {
    super(error.message);
    this.name = 'CoreFailure';
    this.code = error.code;
  }
}

/** How a command names what the contract calls a field: `{ expires: '--expires', text: 'FILE' }`. */
export type FieldNames = Record<string, string>;

/** Error codes that, for a given command, mean "your input" (exit 2) and the flag they concern. */
export type InputErrors = Partial<Record<ErrorData['code'], string>>;

/** What a command's body gets beside the core. */
export interface CoreSession {
  /**
   * Called before the command first writes the profile's database (`jwt sign` records the pair
   * it signed; the `keys` commands write only the keys folder): waits for a running recovery to
   * finish, saying so on stderr as an owner does, and keeps a recovery from starting until the
   * core is closed (store/owner.ts RECOVERY_LOCK; DESIGN.md "Storage").
   */
  beforeWrite(): Promise<void>;
}

/**
 * Opens the profile's core for one command (the vault's DETS_VAULT_PASSPHRASE is read from the
 * command's environment) and closes it afterwards.
 */
export async function withCore<T>(
  dataDir: string,
  io: CliIo,
  fn: (core: ConsoleCore, session: CoreSession) => Promise<T>,
): Promise<T> {
  const core = await createConsoleCore({ dataDir, host: 'cli', env: io.env });
  const held: DatabaseHold[] = [];
  const session: CoreSession = {
    async beforeWrite() {
      if (held.length > 0) return;
      held.push(await holdForOneShotWrite(dataDir, { onWait: (r) => io.stderr(`${recoveryWaitLine(r)}\n`) }));
    },
  };
  try {
    return await fn(core, session);
  } finally {
    await core.close();
    // Only once the database is closed: a connection's last close may still write to it.
    for (const hold of held) hold.release();
  }
}

/**
 * Calls a contract method; on failure throws a UsageError naming the flag (BAD_ARGUMENT and the
 * command's `inputErrors`) or a CoreFailure carrying the code (everything else).
 */
export async function call<T>(
  core: ConsoleCore,
  method: string,
  input: unknown,
  fields: FieldNames,
  inputErrors: InputErrors = {},
): Promise<T> {
  const envelope = await core.dispatch(method, input);
  if (envelope.ok) return envelope.value as T;
  const { error } = envelope;
  if (error.code === 'BAD_ARGUMENT') throw new UsageError(flagProblem(error, fields));
  const flag = inputErrors[error.code];
  if (flag !== undefined) throw new UsageError(`${flag}: ${error.message}`);
  if (error.code === 'VAULT_LOCKED') {
    throw new CoreFailure({
      ...error,
      message: `${error.message} From the CLI: set DETS_VAULT_PASSPHRASE, or run the command on a terminal to be asked.`,
    });
  }
  throw new CoreFailure(error);
}

/**
 * A refused argument as the user typed it: the contract's first issue under the flag's name
 * (`fields` maps the input's paths to flags), else the core's message as it is.
 *
 * @example
 * flagProblem(error, { kid: '--kid' }); // '--kid: must not be empty'
 */
export function flagProblem(error: ErrorData, fields: FieldNames): string {
  const issue = (error.details as { issues?: Array<{ path: string[]; message: string }> } | undefined)
    ?.issues?.[0];
  if (!issue) return error.message;
  const field = issue.path.join('.');
  return `${fields[field] ?? (field || 'argument')}: ${issue.message}`;
}

/** Passphrase attempts on a terminal before giving up. */
const PROMPT_ATTEMPTS = 3;

/**
 * Before a command that needs the vault: a locked passphrase vault, with DETS_VAULT_PASSPHRASE
 * unset and a terminal on stdin, is unlocked with a prompt (no echo, three attempts). In every
 * other case nothing happens here and the vault speaks for itself when the key is used.
 */
export async function unlockVaultIfNeeded(core: ConsoleCore, io: CliIo): Promise<void> {
  if (io.env.DETS_VAULT_PASSPHRASE || !stdinIsTTY(io)) return;
  const status = await core.dispatch('vault.status', undefined);
  if (!status.ok) return;
  const vault = status.value as VaultStatus;
  if (vault.state !== 'locked' || vault.kind !== 'passphrase') return;
  const ask = io.promptSecret ?? ((prompt: string) => promptHidden(prompt));
  for (let attempt = 1; ; attempt += 1) {
    const passphrase = await ask('Vault passphrase: ');
    if (passphrase === '')
      throw new CoreFailure({ code: 'VAULT_LOCKED', message: 'no passphrase given: the vault stays locked' });
    const unlocked = await core.dispatch('vault.unlock', { passphrase });
    if (unlocked.ok) return;
    if (unlocked.error.code !== 'VAULT_PASSPHRASE_WRONG' || attempt >= PROMPT_ATTEMPTS) {
      throw new CoreFailure(unlocked.error);
    }
    io.stderr('That passphrase does not open the vault; try again.\n');
  }
}

/** A number flag passed on as a number when it is one, else as typed (the contract names the problem). */
function numberish(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

// ------------------------------------------------------------------------------ generate

const GENERATE_FIELDS: FieldNames = {
  alg: '--alg',
  bits: '--bits',
  kid: '--kid',
  label: '--label',
  expires: '--expires',
};

/** `keys generate`. */
export async function generate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, KEYS_GENERATE);
  const dataDir = dataDirFlag(values['data-dir'], io, 'write');
  const input = {
    ...(values.alg !== undefined ? { alg: values.alg } : {}),
    ...(values.bits !== undefined ? { bits: numberish(values.bits) } : {}),
    ...(values.kid !== undefined ? { kid: values.kid } : {}),
    ...(values.label !== undefined ? { label: values.label } : {}),
    ...(values.expires !== undefined ? { expires: values.expires } : {}),
  };
  return withCore(dataDir, io, async (core) => {
    await unlockVaultIfNeeded(core, io);
    const key = await call<KeyInfo>(core, 'keys.generate', input, GENERATE_FIELDS, { CONFLICT: '--kid' });
    if (values.json) io.stdout(`${JSON.stringify({ kid: key.kid, alg: key.alg, jwk: key.public_jwk })}\n`);
    else io.stdout(describeKey('Generated', key));
    return EXIT.OK;
  });
}

/** A key for a person: what it is, its status and expiry, its fingerprint and public JWK. */
export function describeKey(verb: string, key: KeyInfo): string {
  const where =
    key.sign_command === null
      ? 'its private part is sealed in the vault'
      : 'its private part stays where it is held; the command below signs, each signature verified';
  const lines = [
    `${verb} ${key.alg.startsWith('R') ? 'an' : 'a'} ${key.alg} signing key (RSA, ${key.bits} bits); ${where}.`,
    `  kid          ${key.kid}`,
    ...(key.sign_command !== null ? [`  signs with   ${key.sign_command.join(' ')}`] : []),
    `  status       ${key.status}${key.status === 'active' ? ' (signs by default)' : ''}`,
    ...(key.label ? [`  label        ${key.label}`] : []),
    `  expires      ${expiry(key)}`,
    `  fingerprint  ${key.fingerprint} (RFC 7638 SHA-256 thumbprint)`,
    '',
    'Public JWK (spec 2.1), to register with the service:',
    JSON.stringify(key.public_jwk, null, 2),
    '',
  ];
  return lines.join('\n');
}

function expiry(key: Pick<KeyInfo, 'expires' | 'expires_in_days'>): string {
  if (key.expires === null || key.expires_in_days === null) return 'never';
  const d = key.expires_in_days;
  const when =
    d < 0
      ? `expired ${-d} day${d === -1 ? '' : 's'} ago`
      : d === 0
        ? 'last day today'
        : `in ${d} day${d === 1 ? '' : 's'}`;
  return `${key.expires} (${when})`;
}

// ---------------------------------------------------------------------------------- list

/** `keys list`. */
export async function list(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, KEYS_LIST);
  const dataDir = dataDirFlag(values['data-dir'], io, 'read');
  return withCore(dataDir, io, async (core) => {
    const keys = await call<KeyInfo[]>(core, 'keys.list', undefined, {});
    if (values.json) {
      // One row per environment a key has a status in (issue 26; docs/cli.md).
      io.stdout(`${JSON.stringify(keyListRows(keys))}\n`);
    } else if (keys.length === 0) {
      io.stdout('No signing keys in this profile yet: create one with `dets-console keys generate`.\n');
    } else {
      io.stdout(table(keys));
    }
    return EXIT.OK;
  });
}

/** The key's status in each environment that uses it ("active (Sandbox)"), else its profile-wide one. */
function statusCell(k: KeyInfo): string {
  const envs = k.environments ?? [];
  return envs.length === 0 ? k.status : envs.map((e) => `${e.status} (${e.name})`).join(', ');
}

function table(keys: KeyInfo[]): string {
  const rows = [
    ['KID', 'ALG', 'BITS', 'STATUS', 'EXPIRES', 'FINGERPRINT', 'LABEL'],
    ...keys.map((k) => [k.kid, k.alg, String(k.bits), statusCell(k), expiry(k), k.fingerprint, k.label]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map(
      (r) =>
        `${r
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

// -------------------------------------------------------------------------------- export

/** `keys export`. */
export async function exportKey(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, KEYS_EXPORT);
  const [kid] = positionals;
  if (kid === undefined) throw new UsageError('export: missing KID (see `dets-console keys list`)');
  const dataDir = dataDirFlag(values['data-dir'], io, 'read');
  return withCore(dataDir, io, async (core) => {
    const exported = await call<{ text: string }>(
      core,
      'keys.export',
      { kid, format: values.format ?? 'jwk' },
      { kid: 'KID', format: '--format' },
      { NOT_FOUND: 'KID' },
    );
    io.stdout(exported.text.endsWith('\n') ? exported.text : `${exported.text}\n`);
    return EXIT.OK;
  });
}

// -------------------------------------------------------------------------------- import

/** The contract's limit on key text, plus room to say it is too long rather than cut it. */
const KEY_TEXT_LIMIT = 64 * 1024;

/** `keys import`. */
export async function importKey(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, KEYS_IMPORT);
  const [file] = positionals;
  if (file === undefined)
    throw new UsageError('import: missing FILE (a private key as PEM or JWK, or - for stdin)');
  const dataDir = dataDirFlag(values['data-dir'], io, 'write');
  const text = await readKeyFile(file, io);
  return withCore(dataDir, io, async (core) => {
    await unlockVaultIfNeeded(core, io);
    const key = await call<KeyInfo>(
      core,
      'keys.import',
      { text, ...(values.kid !== undefined ? { kid: values.kid } : {}) },
      { text: 'FILE', kid: '--kid' },
      { KEY_INVALID: 'FILE', CONFLICT: values.kid !== undefined ? '--kid' : 'FILE' },
    );
    io.stdout(describeKey('Imported', key));
    return EXIT.OK;
  });
}

async function readKeyFile(file: string, io: CliIo): Promise<string> {
  if (file === '-') {
    if (stdinIsTTY(io))
      throw new UsageError('FILE: - reads the key from stdin, but stdin is a terminal: pipe it in');
    return io.readStdin ? io.readStdin() : readProcessStdin(KEY_TEXT_LIMIT, 'FILE');
  }
  return readInputFile(file, 'FILE', KEY_TEXT_LIMIT, 'a private key');
}

/**
 * A small text file a flag names, or a UsageError naming the flag: missing, not a file,
 * unreadable, or larger than `limit` (then `what` "is far shorter").
 *
 * @example
 * await readInputFile('key.pem', '--public', 64 * 1024, 'a public key');
 */
export async function readInputFile(
  file: string,
  flag: string,
  limit: number,
  what: string,
): Promise<string> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new UsageError(`${flag}: ${JSON.stringify(file)} is not a file`);
    if (stat.size > limit) {
      throw new UsageError(`${flag}: ${JSON.stringify(file)} is ${stat.size} bytes; ${what} is far shorter`);
    }
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
    throw new UsageError(`${flag}: cannot read ${JSON.stringify(file)}: ${why}`);
  }
}

// -------------------------------------------------------------------------------- delete

/** `keys delete`. */
export async function deleteKey(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, KEYS_DELETE);
  const [kid] = positionals;
  if (kid === undefined) throw new UsageError('delete: missing KID (see `dets-console keys list`)');
  if (!values.yes) {
    throw new UsageError(
      `--yes: required to delete key ${JSON.stringify(kid)} (its private part cannot be recovered)`,
    );
  }
  const dataDir = dataDirFlag(values['data-dir'], io, 'write');
  return withCore(dataDir, io, async (core) => {
    await call(core, 'keys.delete', { kid, confirm: true }, { kid: 'KID' }, { NOT_FOUND: 'KID' });
    io.stdout(`Deleted key ${kid}.\n`);
    return EXIT.OK;
  });
}
