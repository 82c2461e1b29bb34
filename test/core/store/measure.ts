/**
 * Informal figures for the event store (not a test; no assertions on timings):
 *
 *   npx esbuild test/core/store/measure.ts --bundle --platform=node --format=esm \
 *     --external:libsql --outfile=/tmp/store-measure.mjs && \
 *     NODE_PATH=$PWD/node_modules node /tmp/store-measure.mjs [events=1000000]
 *
 * Prints: durable appends per second at 1/32/128 concurrent appenders (group commit), the time
 * to append N events without waiting for durability, to reopen (no index to rebuild: the
 * database opens as it is), and to answer queries over all N, with the heap used.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { callback, notification } from './helpers';

const total = Number(process.argv[2] ?? 1_000_000);
const log = (line: string) => process.stdout.write(`${line}\n`);
const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

async function durable(concurrency: number, seconds: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dets-measure-'));
  const store = await openEventStore({ dataDir: dir, events: new EventHub() });
  const end = performance.now() + seconds * 1000;
  const lat: number[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (performance.now() < end) {
        const t = performance.now();
        await store.append(notification({ transaction_id: `${w}-${n++}` }), { durable: true });
        lat.push(performance.now() - t);
      }
    }),
  );
  await store.close();
  lat.sort((a, b) => a - b);
  const p = (q: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * q))]!.toFixed(2);
  log(`durable x${concurrency}: ${(lat.length / seconds).toFixed(0)}/s, p50 ${p(0.5)} ms, p99 ${p(0.99)} ms`);
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

async function million(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dets-measure-'));
  let store = await openEventStore({ dataDir: dir, events: new EventHub() });
  const t0 = performance.now();
  const base = Date.parse('2026-01-01T00:00:00Z');
  for (let k = 0; k < total; k += 1000) {
    const batch = [];
    for (let j = k; j < Math.min(total, k + 1000); j++) {
      const at = new Date(base + j * 1000).toISOString();
      batch.push(
        store.append(
          j % 3 === 0
            ? callback({ at, failed_check: j % 7 === 0 ? 'signature' : null, obj: `cust-${j % 5000}` })
            : notification({
                at,
                transaction_id: `tx-${j % 900_000}`,
                outcome: j % 11 === 0 ? 'repeat' : 'accepted',
              }),
        ),
      );
    }
    await Promise.all(batch);
  }
  await store.close();
  const bytes = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('console.db'))
    .reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  log(`append ${total} (not durable): ${ms(t0)}, ${(bytes / 1024 ** 2).toFixed(0)} MiB on disk`);
  const t1 = performance.now();
  store = await openEventStore({ dataDir: dir, events: new EventHub() });
  (globalThis as { gc?: () => void }).gc?.();
  log(`reopen: ${ms(t1)}, heap ${(process.memoryUsage().heapUsed / 1024 ** 2).toFixed(0)} MiB`);
  for (const q of [
    {},
    { kind: 'callback' as const, failed: true },
    { transaction_id: 'tx-4242' },
    { text: 'cust-42' },
    { outcome: 'repeat' as const, since: '2026-01-05T00:00:00Z' },
    { path: '/user_auth', before: 'e000000500000', limit: 50 },
  ]) {
    const t = performance.now();
    const r = await store.query(q);
    log(`query ${JSON.stringify(q)}: total ${r.total}, ${ms(t)}`);
  }
  const t2 = performance.now();
  const page = await store.query({ limit: 100 });
  for (const e of page.events) await store.get(e.id);
  log(`get x100: ${ms(t2)}`);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

for (const c of [1, 32, 128]) await durable(c, 3);
await million();
