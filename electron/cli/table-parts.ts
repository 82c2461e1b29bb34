/**
 * The parts every command's table entry is made of (table.ts): the shapes of a flag, a command
 * and a group, and the flags and notes several commands share.
 */
/** A whole-number flag's range: values outside it are refused naming it (io.ts numberFlag). */
export interface Range {
  readonly min: number;
  readonly max: number;
  /** What the range's words are about ("seconds"), and a hint ("0 picks a free port"). */
  readonly unit?: string;
  readonly hint?: string;
}

export interface FlagDef {
  readonly type: 'string' | 'boolean';
  /** The value's placeholder in usage lines ("DIR", "PORT"); string flags only. */
  readonly value?: string;
  /** The default, shown in the synopsis in place of the placeholder (DESIGN.md's `[--ui-port 7300]`). */
  readonly default?: string;
  /** Shown without brackets in the synopsis. */
  readonly required?: boolean;
  /** One line for the flag's row in the command's `--help`. */
  readonly about: string;
  readonly range?: Range;
  /** May be given more than once (`[--route obj=GLOB|sub=GLOB]…`); its value is then a list. */
  readonly multiple?: boolean;
}

export type Flags = Readonly<Record<string, FlagDef>>;

export interface CommandDef {
  /** As typed: `serve`, `keys generate`. */
  readonly name: string;
  /** Positional arguments in the synopsis (`KID`, `TOKEN`), and how many are accepted. */
  readonly args?: string;
  readonly positionals?: number;
  /** One line: what it does. */
  readonly about: string;
  readonly flags: Flags;
  /** Flags the synopsis shows in one bracket (`[--tls-cert FILE --tls-key FILE]`). */
  readonly together?: readonly (readonly string[])[];
  /** Lines after the flags in `--help`: outputs, exit codes. */
  readonly notes?: readonly string[];
}

/** A command made of subcommands (`keys`, `jwt`, `store`). */
export interface GroupDef {
  readonly name: string;
  readonly about: string;
  readonly subcommands: readonly CommandDef[];
  readonly notes?: readonly string[];
}

export const PORT: Range = { min: 0, max: 65535, hint: '0 picks a free port' };

export const DATA_DIR = {
  type: 'string',
  value: 'DIR',
  about: 'the profile folder (else DETS_DATA_DIR, else the desktop app’s own)',
} as const satisfies FlagDef;
export const HOST = {
  type: 'string',
  value: 'ADDR',
  default: '127.0.0.1',
  about: 'the address to listen on (another than loopback prints a warning)',
} as const satisfies FlagDef;

export const EXIT_CODES =
  'Exit codes: 0 success, 1 failure, 2 bad usage or input (one line on stderr naming the flag).';
export const READY_LINE =
  'With --json, exactly one JSON line on stdout once every listener is up, and nothing else.';

/**
 * `--time-scale F` on `serve` and `sandbox` (issue 27; DESIGN.md "Sandbox service"): a fraction,
 * so its range is read by io.ts fractionFlag, not numberFlag.
 */
export const TIME_SCALE = {
  type: 'string',
  value: 'F',
  default: '1',
  about:
    'multiply every wait of the notification retry ladder and every delivery timeout by F (0 < F ≤ 1), for CI',
  range: {
    min: 0,
    max: 1,
    unit: 'a fraction, more than 0',
    hint: '0.01 plays the whole ladder in about 2.5 s',
  },
} as const satisfies FlagDef;
