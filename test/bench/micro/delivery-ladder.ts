/**
 * The delivery scheduler's timing error (issue 27 "Performance"): the real sandbox (createSandbox,
 * `--time-scale 1`) delivers notifications to a receiver on 127.0.0.1 that answers 500 to each
 * transaction's first attempt and 200 after, so every delivery waits the ladder's first 1 s step
 * on the one scheduler. It starts MICRO_BURST deliveries at once (default 1,000 in flight), then
 * keeps MICRO_RATE new ones a second for MICRO_SECONDS (default 60), and prints the most
 * deliveries in flight and the scheduler's error (an attempt's start minus its planned time) at
 * p50/p99/max over every retry of the sample. Bounded in count and time; every server it starts
 * it stops. Not part of `npm run bench` yet (the /user_auth ratio under this load is not
 * measured here). Run:
 *   npx esbuild test/bench/micro/delivery-ladder.ts --bundle --platform=node --format=esm \\
 *     --packages=external --outfile=dist/micro/delivery-ladder.mjs && node dist/micro/delivery-ladder.mjs
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { EventHub } from '../../../electron/core/event-hub';
import { createSandbox } from '../../../electron/core/sandbox';

const BURST = Number(process.env.MICRO_BURST ?? 1000);
const RATE = Number(process.env.MICRO_RATE ?? 50);
const SECONDS = Number(process.env.MICRO_SECONDS ?? 60);

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const seen = new Set<string>();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const first = !seen.has(body);
      seen.add(body);
      res.writeHead(first ? 500 : 200);
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'dets-micro-ladder-'));
  const sandbox = await createSandbox({ dataDir, events: new EventHub(), timeScale: 1 });
  try {
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const { counterparty_guid } = await sandbox.onboard({
      jwk: { ...jwk, kty: 'RSA', kid: 'micro', alg: 'RS256', use: 'sig' },
      bank_receiver_url: url,
    });
    const ids: string[] = [];
    const send = async () => {
      const r = await sandbox.notify({ counterparty_guid, event: 'pay-in' });
      ids.push(r.delivery_id);
    };
    let maxInFlight = 0;
    const sampleInFlight = async () => {
      const n = (await sandbox.deliveries({ state: 'delivering' })).length;
      maxInFlight = Math.max(maxInFlight, n);
    };
    const started = Date.now();
    // The burst: all at once (their first attempts are judged concurrently).
    await Promise.all(Array.from({ length: BURST }, send));
    await sampleInFlight();
    const end = started + SECONDS * 1000;
    while (Date.now() < end) {
      const tick = Date.now();
      await Promise.all(Array.from({ length: RATE }, send));
      await sampleInFlight();
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - tick))));
    }
    // Let the last retries happen (bounded: 10 s).
    const drain = Date.now() + 10_000;
    while (Date.now() < drain && (await sandbox.deliveries({ state: 'delivering' })).length > 0) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const errors: number[] = [];
    for (const id of ids) {
      const d = await sandbox.delivery({ delivery_id: id });
      for (const a of d.attempts) {
        if (a.n >= 2 && a.planned_at) errors.push(Date.parse(a.at) - Date.parse(a.planned_at));
      }
    }
    errors.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        deliveries: ids.length,
        retries_measured: errors.length,
        max_in_flight_sampled: maxInFlight,
        scheduler_error_ms: { p50: percentile(errors, 50), p99: percentile(errors, 99), max: errors.at(-1) },
        seconds: (Date.now() - started) / 1000,
      }),
    );
  } finally {
    await sandbox.close();
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
