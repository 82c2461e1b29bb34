/**
 * `dets-console`: the CLI host's entry. Bundled to dist/cli/dets-console.js, which package.json
 * `bin` names, so this file is the process itself and signals sent to it reach the CLI.
 */
import { EXIT, type CliIo } from './io';
import { guardOutput } from './output';
import { runCli } from './run';

/** How long a finished command may take to end by itself before it is ended. */
const EXIT_GRACE_MS = 3_000;

let stop: Promise<string> | undefined;
function waitForStop(): Promise<string> {
  stop ??= new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  return stop;
}

{
  // A reader that goes away (`events | head -1`) ends the output quietly (output.ts).
  const stdout = guardOutput(process.stdout);
  const stderr = guardOutput(process.stderr);
  const io: CliIo = {
    stdout: (t) => stdout.write(t),
    stderr: (t) => stderr.write(t),
    env: process.env,
    waitForStop,
    stdoutClosed: () => stdout.closed(),
  };
  /** A write error other than the reader going away loses output: say so, exit 1. */
  const outputFailed = (): boolean => {
    const failure = stdout.failure();
    if (failure) stderr.write(`dets-console: cannot write to stdout: ${failure.code ?? failure.message}\n`);
    return failure !== null;
  };
  /**
   * The command has finished (for serve: stopped, its store flushed and closed), so the process
   * ends when nothing is left to run. Should a handle still hold it (a thread or socket a close
   * missed), it ends anyway after a grace, naming what held it: a serve that says "stopped" and
   * does not exit is a hang to whoever stops it (a test, a supervisor, CI).
   */
  const exitIfHeld = (): void => {
    setTimeout(() => {
      const held = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
      stderr.write(
        `dets-console: still held after the command ended (${held.join(', ') || 'nothing named'}); exiting\n`,
      );
      process.exit();
    }, EXIT_GRACE_MS).unref();
  };
  runCli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = outputFailed() ? EXIT.FAILED : code;
      exitIfHeld();
    },
    (err: unknown) => {
      stderr.write(`dets-console: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = EXIT.FAILED;
      exitIfHeld();
    },
  );
}
