/**
 * `dets-console`: the CLI host's entry. Bundled to dist/cli/dets-console.js, which package.json
 * `bin` names, so this file is the process itself and signals sent to it reach the CLI.
 */
import { EXIT, type CliIo } from './io';
import { runCli } from './run';

let stop: Promise<string> | undefined;
function waitForStop(): Promise<string> {
  stop ??= new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  return stop;
}

{
  const io: CliIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    waitForStop,
  };
  runCli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`dets-console: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = EXIT.FAILED;
    },
  );
}
