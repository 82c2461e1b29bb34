import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultDataDir } from '../core/paths';
import { checkDataDir, type DataDirUse } from './data-dir';
import { nearest } from './nearest';
import type { CommandDef, Flags, GroupDef } from './table';

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
  /**
   * True once stdout can take no more (its reader went away: `events | head -1`): a command with
   * more to print stops there. Absent means never.
   */
  stdoutClosed?(): boolean;
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

/** What parseFlags gives back: each flag of the table entry typed by its kind. */
export type FlagValues<F extends Flags> = {
  [K in keyof F]?: F[K]['type'] extends 'boolean'
    ? boolean
    : F[K] extends { multiple: true }
      ? string[]
      : string;
};

/** A value that is a negative number, not a flag: `--limit -5` means the value -5. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * Parses `argv` against a command of the table (table.ts), strictly: node:util parseArgs, after
 * a first pass that gives every mistake a one-line UsageError naming the flag. An unknown flag is
 * named with the nearest known one when one is close ("unknown option --bank-prot (did you mean
 * --bank-port?)"); a flag missing its value says so; a negative number is taken as a value
 * (`--limit -5`), so the flag's own check can name its range instead of parseArgs calling it
 * ambiguous. `--help` never reaches here: run.ts answers it first.
 *
 * @example
 * const { values } = parseFlags(['--limit', '20'], EVENTS); // values.limit === '20'
 */
export function parseFlags<D extends CommandDef>(
  argv: string[],
  def: D,
): { values: FlagValues<D['flags']>; positionals: string[] } {
  const flags: Flags = def.flags;
  const args = normalizeArgs(argv, flags);
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, flag] of Object.entries(flags))
    options[name] = flag.multiple ? { type: flag.type, multiple: true } : { type: flag.type };
  const positionals = def.positionals ?? 0;
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    throw new UsageError(cleanParseError(err));
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return { values: parsed.values as FlagValues<D['flags']>, positionals: parsed.positionals };
}

/** The first pass of parseFlags: unknown flags, missing values, negative numbers as values. */
function normalizeArgs(argv: readonly string[], flags: Flags): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (!arg.startsWith('-') || arg === '-' || NEGATIVE_NUMBER.test(arg)) {
      out.push(arg);
      continue;
    }
    const [name, ...rest] = arg.replace(/^--?/, '').split('=');
    const flag = arg.startsWith('--') ? flags[name!] : undefined;
    if (flag === undefined) {
      if (arg === '-h' || arg === '--help') {
        out.push(arg);
        continue;
      }
      throw new UsageError(unknownOption(arg.split('=')[0]!, flags));
    }
    if (flag.type === 'boolean') {
      if (rest.length > 0) throw new UsageError(`--${name}: takes no value`);
      out.push(arg);
      continue;
    }
    if (rest.length > 0) {
      out.push(arg);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined) throw new UsageError(`--${name}: expects a value`);
    if (value.startsWith('-') && value !== '-' && !NEGATIVE_NUMBER.test(value)) {
      throw new UsageError(
        `--${name}: expects a value, not the flag ${value} (write --${name}=${value} if that is the value)`,
      );
    }
    out.push(`--${name}=${value}`);
    i++;
  }
  return out;
}

/**
 * The subcommand `argv` starts with, of a command made of subcommands (`keys`, `jwt`, `store`),
 * and the arguments after it; a missing or unknown one is a UsageError that lists them all and
 * names the nearest ("\"genrate\" is not a subcommand; use: keys generate|list|… (did you mean
 * generate?)").
 */
export function pickSubcommand(group: GroupDef, argv: readonly string[]): [string, string[]] {
  const [sub, ...rest] = argv;
  const names = group.subcommands.map((s) => s.name.slice(group.name.length + 1));
  const use = `use: ${group.name} ${names.join('|')}`;
  if (sub === undefined) throw new UsageError(`a subcommand is needed; ${use}`);
  if (!names.includes(sub)) {
    const guess = nearest(sub, names);
    throw new UsageError(`"${sub}" is not a subcommand; ${use}${guess ? ` (did you mean ${guess}?)` : ''}`);
  }
  return [sub, rest];
}

/** "unknown option --bank-prot (did you mean --bank-port?)". */
function unknownOption(option: string, flags: Flags): string {
  const known = [...Object.keys(flags), 'help'];
  const guess = option.startsWith('--') ? nearest(option.slice(2), known) : undefined;
  return `unknown option ${option}${guess ? ` (did you mean --${guess}?)` : ''}`;
}

function cleanParseError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const unknown = /Unknown option '([^']+)'/.exec(msg);
  if (unknown) return `unknown option ${unknown[1]}`;
  return msg.split('\n')[0] ?? msg;
}

/**
 * A whole-number flag of the table: undefined when absent, else a number inside the flag's
 * range, or a UsageError naming the flag and the range ("--limit: must be a whole number from 1
 * to 1000000, not \"-5\"").
 */
export function numberFlag<D extends CommandDef>(
  def: D,
  name: keyof D['flags'] & string,
  value: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const range = (def.flags as Flags)[name]?.range;
  if (!range) throw new Error(`${def.name} --${name} has no range in the command table`);
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= range.min && n <= range.max)) {
    const unit = range.unit ? ` of ${range.unit}` : '';
    const hint = range.hint ? ` (${range.hint})` : '';
    throw new UsageError(
      `--${name}: must be a whole number${unit} from ${range.min} to ${range.max}${hint}, not ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/**
 * A fraction flag (`--time-scale F`): a decimal number in the table's range, more than its
 * minimum and at most its maximum (0 < F ≤ 1); the table's default when absent; else a
 * UsageError naming the flag.
 *
 * @example
 * fractionFlag(SANDBOX, 'time-scale', '0.01'); // 0.01
 */
export function fractionFlag<D extends CommandDef>(
  def: D,
  name: keyof D['flags'] & string,
  value: string | undefined,
): number {
  const flag = (def.flags as Flags)[name];
  if (!flag?.range || flag.default === undefined) {
    throw new Error(`${def.name} --${name} has no range or default in the command table`);
  }
  const text = value ?? flag.default;
  const n = /^(\d+(\.\d*)?|\.\d+)(e-?\d+)?$/i.test(text) ? Number(text) : NaN;
  if (!(n > flag.range.min && n <= flag.range.max)) {
    throw new UsageError(
      `--${name}: must be a number more than ${flag.range.min} and at most ${flag.range.max} (e.g. 0.01), not ${JSON.stringify(text)}`,
    );
  }
  return n;
}

/** {@link numberFlag}, or the flag's default from the table when it is absent. */
export function numberFlagOrDefault<D extends CommandDef>(
  def: D,
  name: keyof D['flags'] & string,
  value: string | undefined,
): number {
  const fallback = (def.flags as Flags)[name]?.default;
  const n = numberFlag(def, name, value ?? fallback);
  if (n === undefined) throw new Error(`${def.name} --${name} has no default in the command table`);
  return n;
}

/**
 * The profile folder: --data-dir, else DETS_DATA_DIR, else the desktop app's own; checked to be
 * usable for what the command does with it (data-dir.ts), or a UsageError naming where it came
 * from and the path.
 */
export function dataDirFlag(value: string | undefined, io: CliIo, use: DataDirUse): string {
  if (value !== undefined && value.trim() === '') throw new UsageError('--data-dir: must not be empty');
  const dir = value ?? (io.env.DETS_DATA_DIR || defaultDataDir(process.platform, io.env));
  const source =
    value !== undefined
      ? '--data-dir'
      : io.env.DETS_DATA_DIR
        ? 'DETS_DATA_DIR'
        : 'the default profile folder';
  const problem = checkDataDir(dir, use);
  if (problem) throw new UsageError(`${source}: ${problem}`);
  return dir;
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
