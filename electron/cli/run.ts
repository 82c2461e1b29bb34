/** Runs one CLI invocation: picks the command, maps UsageError to exit 2 with a one-line reason. */
import { EXIT, UsageError, type CliIo } from './io';
import { commands, usage } from './commands';

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  if (name === '--version' || name === '-v') {
    const { APP_VERSION } = await import('../core/version');
    io.stdout(`${APP_VERSION}\n`);
    return EXIT.OK;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`dets-console: unknown command "${name}" (try: ${Object.keys(commands).join(', ')})\n`);
    return EXIT.USAGE;
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
