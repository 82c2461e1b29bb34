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
  /** Whether stdin is a terminal (may we prompt?); defaults to process.stdin.isTTY. */
  stdinIsTTY?: boolean;
  /** All of stdin as text; defaults to reading process.stdin. */
  readStdin?(): Promise<string>;
  /** Asks for a secret without echoing it; defaults to {@link promptHidden} on the terminal. */
  promptSecret?(prompt: string): Promise<string>;
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

/** True when the command may prompt: stdin is a terminal. */
export function stdinIsTTY(io: CliIo): boolean {
  return io.stdinIsTTY ?? process.stdin.isTTY === true;
}

/**
 * Reads all of process.stdin as UTF-8, refusing more than `limit` bytes with a UsageError that
 * names `what` (e.g. "FILE", "TOKEN").
 */
export async function readProcessStdin(limit: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    total += buf.length;
    if (total > limit) throw new UsageError(`${what}: stdin holds more than ${Math.floor(limit / 1024)} KiB`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The user pressed Ctrl-C at a prompt: exit 1, not a usage error. */
export class PromptCancelled extends Error {
  constructor() {
    super('cancelled at the prompt');
    this.name = 'PromptCancelled';
  }
}

/**
 * Asks for a secret on the terminal without echoing it: the prompt goes to stderr (stdout stays
 * clean for the command's output), stdin is read in raw mode until Enter. Backspace edits,
 * Ctrl-C rejects with PromptCancelled, Ctrl-D ends the input. Never used when stdin is not a
 * terminal (a secret is never read from a pipe by surprise, nor accepted as a flag).
 *
 * @example
 * const passphrase = await promptHidden('Vault passphrase: ');
 */
export function promptHidden(
  prompt: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const wasRaw = input.isRaw;
    let value = '';
    const finish = (err?: Error) => {
      input.removeListener('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new PromptCancelled());
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    output.write(prompt);
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
  });
}
