/**
 * Bench target (a): the real sandbox, through the real composition root, exactly as the CLI and
 * `serve` start it (createConsoleCore + listenSandbox on 127.0.0.1, any free port). Bundled by
 * scripts/bench.mjs into dist/bench/servers/sandbox.mjs.
 *
 * Argument: the data directory (a fresh temporary one; the bench deletes it).
 */
import { createConsoleCore } from '../../../electron/core/console-core';
import { announce, stopOn } from '../lib/child-runtime';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: sandbox.mjs <data-dir>');
const core = await createConsoleCore({ dataDir, host: 'cli' });
const listener = await core.listenSandbox({ host: '127.0.0.1', port: 0 });
stopOn(async () => {
  await listener.close();
  await core.close();
});
announce({ url: listener.url, sandbox: listener.url });
