/**
 * Bench target: the real bank endpoints (issue 5) through the real composition root, as `serve`
 * starts them: createConsoleCore({dataDir, host: 'cli', serviceJwksUrl}), the customer directory
 * imported through core.dispatch('bank.importCustomers', {text}), core.listenBank on 127.0.0.1,
 * any free port. Bundled by scripts/bench.mjs into dist/bench/servers/bank.mjs.
 *
 * Arguments: the data directory (a fresh temporary one), then optionally a `--users` JSON file.
 * Env BENCH_SERVICE_JWKS_URL: the service JWKS the X-Session-ID tokens verify against.
 * Env BENCH_EVENT_RECORDING=off: the core's event store is the real one except that append
 * stores nothing (CoreOptions.eventStore, a bench hook): the bank suite's "recording off"
 * target, the baseline of what recording events costs /user_auth (issue 12).
 * Env BENCH_SANDBOX_TIME_SCALE=F: the same core also serves the sandbox on 127.0.0.1 (as `serve`
 * does, one process), with `--time-scale F`; the ready line names it (`sandbox`). The delivery
 * suite's bank: its /user_auth measured while its sandbox delivers (issue 27).
 * SIGTERM closes the core (bank, then the event store, flushed), then exits 0.
 */
import { readFileSync } from 'node:fs';
import { createConsoleCore } from '../../../electron/core/console-core';
import {
  formatEventId,
  openEventStore,
  summarize,
  type EventStore,
  type EventStoreOptions,
} from '../../../electron/core/store';
import { announce, stopOn } from '../lib/child-runtime';

const [dataDir, usersFile] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: bank.mjs <data-dir> [users.json]');
const serviceJwksUrl = process.env.BENCH_SERVICE_JWKS_URL;
const recording = process.env.BENCH_EVENT_RECORDING ?? 'on';
if (recording !== 'on' && recording !== 'off')
  throw new Error(`BENCH_EVENT_RECORDING must be on or off, got "${recording}"`);

/** The real store, but an append that stores nothing and answers at once. */
async function notRecording(options: EventStoreOptions): Promise<EventStore> {
  const store = await openEventStore(options);
  return {
    append: (event) => Promise.resolve(summarize({ ...event, id: formatEventId(0) })),
    query: (q) => store.query(q),
    get: (id) => store.get(id),
    scan: (filter) => store.scan(filter),
    hasTransaction: (tx) => store.hasTransaction(tx),
    flush: () => store.flush(),
    health: () => store.health(),
    integrity: () => store.integrity(),
    stats: (q) => store.stats(q),
    close: () => store.close(),
  };
}

const timeScaleVar = process.env.BENCH_SANDBOX_TIME_SCALE;
const timeScale = timeScaleVar === undefined ? undefined : Number(timeScaleVar);
if (timeScale !== undefined && !(timeScale > 0 && timeScale <= 1))
  throw new Error(`BENCH_SANDBOX_TIME_SCALE must be a number in (0, 1], got "${timeScaleVar}"`);

const core = await createConsoleCore({
  dataDir,
  host: 'cli',
  ...(timeScale !== undefined ? { timeScale } : {}),
  ...(serviceJwksUrl ? { serviceJwksUrl } : {}),
  ...(recording === 'off' ? { eventStore: notRecording } : {}),
});
let imported: unknown = 0;
if (usersFile) {
  const answer = await core.dispatch('bank.importCustomers', { text: readFileSync(usersFile, 'utf8') });
  if (!answer.ok) throw new Error(`bank.importCustomers failed: ${JSON.stringify(answer.error)}`);
  imported = (answer.value as { imported?: unknown }).imported;
}
const listener = await core.listenBank({ host: '127.0.0.1', port: 0 });
const sandbox = timeScale === undefined ? null : await core.listenSandbox({ host: '127.0.0.1', port: 0 });
stopOn(async () => {
  await sandbox?.close();
  await listener.close();
  await core.close();
});
announce({
  url: listener.url,
  bank: listener.url,
  imported,
  recording,
  ...(sandbox ? { sandbox: sandbox.url } : {}),
});
