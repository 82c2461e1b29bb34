/**
 * Runs one CLI invocation: answers `--help` for any command or subcommand from the command table
 * (DESIGN.md "Command line": usage on stdout, exit 0), picks the command, and maps a UsageError
 * to exit 2 with a one-line reason on stderr.
 */
import { EXIT, UsageError, type CliIo } from './io';
import { commands } from './commands';
import { nearest } from './nearest';
import { findDef, topUsage, usageOf } from './usage';

const HELP = new Set(['--help', '-h']);

/** `--help` or `-h` anywhere before a `--` asks for help, whatever else the line says (as git does). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => HELP.has(a));
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(topUsage());
    return EXIT.USAGE;
  }
  if (HELP.has(name)) {
    io.stdout(topUsage());
    return EXIT.OK;
  }
  if (name === 'help') return help(rest, io);
  if (name === '--version' || name === '-v') {
    const { APP_VERSION } = await import('../core/version');
    io.stdout(`${APP_VERSION}\n`);
    return EXIT.OK;
  }
  const command = commands[name];
  if (!command) {
    const guess = nearest(name, Object.keys(commands));
    io.stderr(
      `dets-console: unknown command "${name}"${guess ? ` (did you mean ${guess}?)` : ''}; the commands: ${Object.keys(commands).join(', ')}\n`,
    );
    return EXIT.USAGE;
  }
  if (asksForHelp(rest)) {
    io.stdout(usageOf(findDef(name, rest[0])!));
    return EXIT.OK;
  }
  try {
    return await command(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`dets-console ${name}: ${err.message}\n`);
      return EXIT.USAGE;
    }
    const code =
      err && typeof err === 'object' && 'code' in err ? `${String((err as { code: unknown }).code)}: ` : '';
    io.stderr(`dets-console ${name}: ${code}${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.FAILED;
  }
}

/** `dets-console help [COMMAND [SUBCOMMAND]]`: the same text as `COMMAND [SUBCOMMAND] --help`. */
function help(argv: string[], io: CliIo): number {
  const [name, sub] = argv;
  if (name === undefined) {
    io.stdout(topUsage());
    return EXIT.OK;
  }
  const def = findDef(name, sub);
  if (!def) {
    const guess = nearest(name, Object.keys(commands));
    io.stderr(`dets-console help: unknown command "${name}"${guess ? ` (did you mean ${guess}?)` : ''}\n`);
    return EXIT.USAGE;
  }
  io.stdout(usageOf(def));
  return EXIT.OK;
}
