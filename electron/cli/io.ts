import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What a command may touch of its process; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  /**
   * For long-running commands: resolves with the signal name on SIGINT/SIGTERM. Handlers are
   * installed only when a command asks, so Ctrl-C still ends short commands at once.
   */
  waitForStop(): Promise<string>;
}

/** DESIGN.md exit codes: 0 success; 1 a check or conformance case failed; 2 bad usage or input. */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;

/** Bad usage or bad input: exit 2 with this one-line reason (naming the flag or field) on stderr. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs, strict, with its errors turned into one-line UsageErrors that name the
 * flag ("--ui-port: expects a value").
 */
export function parseFlags<O extends Options>(argv: string[], options: O, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    throw new UsageError(cleanParseError(err));
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return parsed;
}

function cleanParseError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // "Option '--ui-port <value>' argument missing" / "Unknown option '--nope'. To specify..."
  const unknown = /Unknown option '([^']+)'/.exec(msg);
  if (unknown) return `${unknown[1]}: unknown option`;
  const missing = /Option '(-[^' ]+)[^']*' argument missing/.exec(msg);
  if (missing) return `${missing[1]}: expects a value`;
  const noValue = /Option '(-[^' ]+)[^']*' does not take an argument/.exec(msg);
  if (noValue) return `${noValue[1]}: takes no value`;
  return msg.split('\n')[0] ?? msg;
}

/** A TCP port flag: an integer 0..65535 (0 means any free port). */
export function portFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`--${name}: "${value}" is not a port number (0-65535; 0 picks a free port)`);
  }
  return Number(value);
}

/** The profile folder: --data-dir, else DETS_DATA_DIR, else the desktop app's own. */
export function dataDirFlag(value: string | undefined, io: CliIo, fallback: () => string): string {
  if (value !== undefined && value.trim() === '') throw new UsageError('--data-dir: must not be empty');
  return value ?? (io.env.DETS_DATA_DIR || fallback());
}
