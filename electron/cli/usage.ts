/**
 * The usage texts of `dets-console`, all made from the one table (table.ts): the top-level usage
 * (every command with every flag), and each command's and subcommand's `--help` (DESIGN.md
 * "Command line": every command and subcommand answers `--help` with its usage and exit 0).
 */
import { isGroup, TABLE, type CommandDef, type FlagDef, type GroupDef } from './table';

/** Usage lines are wrapped to this width, as a terminal of 100 columns shows them. */
const WIDTH = 100;
/** The synopsis' command column: `dets-console keys       generate …` (DESIGN.md's layout). */
const NAME_COLUMN = 11;
const HELP_ROW = { flag: '-h, --help', about: 'print this help and exit' };

/** `--name VALUE` as a synopsis shows it: the default in place of the placeholder, if any. */
function flagWords(name: string, flag: FlagDef): string {
  return flag.type === 'boolean' ? `--${name}` : `--${name} ${flag.default ?? flag.value ?? 'VALUE'}`;
}

/** The synopsis' words after the command: positionals, then each flag (or group of flags). */
function synopsisWords(def: CommandDef): string[] {
  const words: string[] = def.args ? [def.args] : [];
  const grouped = new Set((def.together ?? []).flat());
  for (const [name, flag] of Object.entries(def.flags)) {
    const group = def.together?.find((g) => g[0] === name);
    if (group) {
      words.push(`[${group.map((n) => flagWords(n, def.flags[n]!)).join(' ')}]`);
      continue;
    }
    if (grouped.has(name)) continue;
    const word = flag.required ? flagWords(name, flag) : `[${flagWords(name, flag)}]`;
    words.push(flag.multiple ? `${word}…` : word);
  }
  return words;
}

/** `head` then the words, wrapped at `width`, continuation lines indented to `indent`. */
function wrap(head: string, words: readonly string[], indent: number, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = head;
  for (const word of words) {
    if (line.length + 1 + word.length > width && line.trim().length > 0 && line.length > indent) {
      lines.push(line);
      line = `${' '.repeat(indent)}${word}`;
    } else line = line.endsWith(' ') || line === '' ? `${line}${word}` : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** `dets-console serve      [--data-dir DIR] …`, the top-level usage's line(s) for one command. */
function tableSynopsis(def: CommandDef): string[] {
  const [command, sub] = def.name.split(' ') as [string, string | undefined];
  const head = `dets-console ${command.length >= NAME_COLUMN ? `${command} ` : command.padEnd(NAME_COLUMN)}`;
  const words = synopsisWords(def);
  // A subcommand's continuation lines start under its first flag, as DESIGN.md aligns them.
  const indent = head.length + (sub ? sub.length + 1 : 0);
  // The top-level usage indents each line by two.
  return wrap(sub ? `${head}${sub}` : head, words, indent, WIDTH - 2);
}

/** `Usage: dets-console keys generate [--alg RS256] …`, for one command's own help. */
function ownSynopsis(def: CommandDef, lead = 'Usage: '): string[] {
  const head = `${lead}dets-console ${def.name}`;
  return wrap(head, synopsisWords(def), head.length + 1);
}

function flagRows(def: CommandDef): string[] {
  const rows = Object.entries(def.flags).map(([name, flag]) => ({
    flag: flag.type === 'boolean' ? `--${name}` : `--${name} ${flag.value ?? 'VALUE'}`,
    about: flag.default !== undefined ? `${flag.about} (default ${flag.default})` : flag.about,
  }));
  rows.push(HELP_ROW);
  // Long placeholders (--tunnel's) would push every description right: those go on their own line.
  const width = Math.min(26, Math.max(...rows.map((r) => r.flag.length)) + 2);
  return rows.flatMap((r) => {
    const pad = ' '.repeat(2 + width);
    // Wrapped as if the flag column were blank, then the first line gets the flag.
    const about = wrap(pad, r.about.split(' '), pad.length);
    return r.flag.length + 2 > width
      ? [`  ${r.flag}`, ...about]
      : [`  ${r.flag.padEnd(width)}${about[0]!.slice(pad.length)}`, ...about.slice(1)];
  });
}

/** A command's or subcommand's `--help`: synopsis, what it does, each flag, notes. */
export function commandUsage(def: CommandDef): string {
  return [
    ...ownSynopsis(def),
    '',
    `${capitalize(def.about)}.`,
    '',
    'Flags:',
    ...flagRows(def),
    ...(def.notes?.length ? ['', ...def.notes] : []),
    '',
  ].join('\n');
}

/** A group's `--help` (`keys --help`): each subcommand's synopsis and what it does. */
export function groupUsage(def: GroupDef): string {
  const lines = ['Usage:'];
  for (const sub of def.subcommands) lines.push(...ownSynopsis(sub, '  '));
  lines.push('', `${capitalize(def.about)}:`, '');
  const width = Math.max(...def.subcommands.map((s) => s.name.length - def.name.length)) + 2;
  for (const sub of def.subcommands)
    lines.push(`  ${sub.name.slice(def.name.length + 1).padEnd(width)}${sub.about}`);
  lines.push(
    '',
    `\`dets-console ${def.name} SUBCOMMAND --help\` describes each flag.`,
    ...(def.notes?.length ? def.notes : []),
    '',
  );
  return lines.join('\n');
}

/** The top-level usage: every command with every one of its flags, from the table. */
export function topUsage(): string {
  const lines = ['dets-console: developer console for the Digital-Entity Transfer Service', '', 'Usage:'];
  for (const def of TABLE) {
    for (const c of isGroup(def) ? def.subcommands : [def])
      lines.push(...tableSynopsis(c).map((l) => `  ${l}`));
  }
  lines.push(
    '  dets-console --version',
    '',
    'Every command takes --data-dir DIR (or DETS_DATA_DIR); the default is the desktop app’s own',
    'profile folder. `dets-console COMMAND --help` describes a command and each of its flags.',
    'Exit codes: 0 success, 1 a check or conformance case failed, 2 bad usage or input.',
    '',
  );
  return lines.join('\n');
}

/** The table entry for `argv` (`['keys', 'generate', …]`): the subcommand when one is named. */
export function findDef(command: string, next: string | undefined): CommandDef | GroupDef | undefined {
  const def = TABLE.find((d) => d.name === command);
  if (!def || !isGroup(def)) return def;
  return def.subcommands.find((s) => s.name === `${command} ${next}`) ?? def;
}

/** The usage `--help` prints for that entry. */
export function usageOf(def: CommandDef | GroupDef): string {
  return isGroup(def) ? groupUsage(def) : commandUsage(def);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
