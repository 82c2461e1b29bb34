/**
 * CPU per recorded event through the real store (issue 12: recording a callback must cost little
 * beside its RSA verification). Appends N callback events shaped as the bank records them
 * (bank.ts callbackEvent), `PER_TURN` per event-loop turn as the bank's recordAnswered does,
 * waits for every commit, and prints process.cpuUsage (every thread: main + writer worker) per
 * event, and the main thread's share (event-loop busy time). Run pinned, e.g.
 *   npx esbuild test/bench/micro/store-cpu.ts --bundle --platform=node --format=esm \\
 *     --packages=external --outfile=dist/micro/store-cpu.mjs && taskset -c 1 node dist/micro/store-cpu.mjs
 * Settings: MICRO_N (events per round, default 10000), MICRO_ROUNDS (5), MICRO_KIND (callback |
 * notification; notification also runs 32 concurrent durable appenders for MICRO_SECONDS, 8),
 * MICRO_CALLBACK_CAP (the callback class's cap; e.g. 4000 puts every round at the cap, as a
 * long-running console is: each commit then also trims as many callbacks as it adds).
 *
 * MICRO_KIND=row-floor: a lower bound on what storing a callback can cost in this schema. The
 * rows records.ts toRow makes of the same callbacks go straight into the database with the
 * writer's statements (ROWS_PER_INSERT per call, 512 rows per transaction, synchronous=NORMAL as
 * the writer commits a batch with nothing durable): no event, no message to a thread, no queue.
 * Then the same without the secondary indexes, without the text row, and with a record cut to
 * 600 bytes: what each part of the row costs SQLite and the binding.
 *
 * MICRO_KIND=durable-floor: the same for durable notifications, as the notify bench's commits
 * hold them (MICRO_BATCH rows per transaction, default 16, synchronous=FULL): first the fsync
 * floor's own storage (the batch's JSON lines appended in one write, one fdatasync), then the
 * rows as stored, with only the transaction_id index (repeat detection), with no index, and with
 * no index and no text row. What a durable SQLite commit costs beside an appended line.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'libsql';
import { EventHub } from '../../../electron/core/event-hub';
import { blankEvent, openEventStore, type NewEvent } from '../../../electron/core/store';
import { PENDING_ID, ROW, toRow, type EventRow } from '../../../electron/core/store/records';
import {
  EVENT_COLUMNS,
  INTO_EVENTS,
  INTO_TEXT,
  insertRowsSql,
  ROWS_PER_INSERT,
} from '../../../electron/core/store/sql';

const N = Number(process.env.MICRO_N ?? 10_000);
const KIND = process.env.MICRO_KIND ?? 'callback';
const PER_TURN = 32;
const TOKEN =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6InNlcnZpY2Uta2V5LTEiLCJ0eXAiOiJKV1QifQ.' +
  Buffer.from(
    JSON.stringify({
      obj: 'bank-customer-0001',
      sub: 'user-0001',
      iat: 1700000000,
      exp: 1700000300,
      flow: 'login',
    }),
  ).toString('base64url') +
  '.' +
  'x'.repeat(342);

function callback(i: number): NewEvent {
  return {
    ...blankEvent('callback', new Date().toISOString()),
    path: '/user_auth',
    method: 'GET',
    remote: '127.0.0.1',
    status: 200,
    failed_check: null,
    obj: `bank-customer-${i % 1000}`,
    sub: `user-${i % 1000}`,
    duration_ms: 0.42,
    warning: null,
    request: {
      method: 'GET',
      url: '/user_auth',
      headers: { host: '127.0.0.1:40000', connection: 'keep-alive', 'x-session-id': TOKEN },
      body: null,
    },
    response: {
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
      body: JSON.stringify({ external_id: `ext-${i}`, phone: '+380501234567', key: '<masked: 64 chars>' }),
    },
    data: { verdict: { detail: null } },
    jwks: {
      url: 'http://127.0.0.1:40001/.well-known/jwks.json',
      kids: ['service-key-1'],
      fetched_at: new Date().toISOString(),
      stale: false,
      error: null,
      rejected: [],
      duplicates: [],
    },
    forward: null,
  } as NewEvent;
}

function notification(): NewEvent {
  const tx = randomUUID();
  const body = JSON.stringify({ transaction_id: tx });
  return {
    ...blankEvent('notification', new Date().toISOString()),
    path: '/api/svc/notify/pay-in',
    method: 'POST',
    remote: '127.0.0.1',
    status: 200,
    outcome: 'accepted',
    transaction_id: tx,
    duration_ms: 0.3,
    request: {
      method: 'POST',
      url: '/api/svc/notify/pay-in',
      headers: { host: '127.0.0.1:40000', 'content-type': 'application/json', 'content-length': '52' },
      body,
    },
    response: { status: 200, headers: {}, body: '' },
  };
}

/** CPU time of the main thread alone, µs (Linux schedstat: ns on CPU). */
function mainThreadUs(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
}

/** Waits until the process (its writer's idle indexing and checkpoint included) stops using CPU. */
async function settle(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const c = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 200));
    const d = process.cpuUsage(c);
    if (d.user + d.system < 4000) return;
  }
}

type FloorVariant = {
  name: string;
  /** The secondary indexes on events kept (null: every one). */
  keep: string[] | null;
  text: boolean;
  recordChars: number | null;
};

/**
 * The floor modes (see the header): µs of CPU per row, for each variant of the row. row-floor:
 * callbacks, 512 rows per transaction, synchronous=NORMAL. durable-floor: notifications,
 * MICRO_BATCH rows (default 16, the bench's mean commit) per transaction, synchronous=FULL, and
 * first what the fsync floor does with the same batch (its lines appended, one fdatasync).
 */
async function floor(durable: boolean): Promise<void> {
  const batch = durable ? Number(process.env.MICRO_BATCH ?? 16) : 512;
  const rows = Array.from({ length: N }, (_, i) => {
    const e = durable ? notification() : callback(i);
    return toRow({ id: PENDING_ID, ...e }, 0, 256 * 1024).row;
  });
  const variants: FloorVariant[] = durable
    ? [
        { name: 'as stored (every index, its text row)', keep: null, text: true, recordChars: null },
        { name: 'only the transaction_id index', keep: ['events_tx'], text: true, recordChars: null },
        { name: 'no index', keep: [], text: true, recordChars: null },
        { name: 'no index, no text row', keep: [], text: false, recordChars: null },
      ]
    : [
        { name: 'as stored (every index, its text row)', keep: null, text: true, recordChars: null },
        { name: 'no secondary index on events', keep: [], text: true, recordChars: null },
        { name: 'no index, no text row', keep: [], text: false, recordChars: null },
        { name: 'no index, no text row, a 600-byte record', keep: [], text: false, recordChars: 600 },
      ];
  const rounds = Number(process.env.MICRO_ROUNDS ?? 3);
  const report = (name: string, results: number[], extra: string) => {
    results.sort((a, b) => a - b);
    process.stdout.write(
      `${durable ? `durable floor, ${batch} per commit` : 'row floor'}, ${name}: median ${results[Math.floor(results.length / 2)]!.toFixed(1)} µs/row (${results.map((r) => r.toFixed(1)).join(', ')}${extra})\n`,
    );
  };
  if (durable) {
    // The fsync floor's storage: each batch's lines appended in one write, then one fdatasync.
    const results: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'dets-micro-floor-'));
      const fd = openSync(join(dir, 'log.jsonl'), 'a', 0o600);
      const lines = rows.map((r) => `${JSON.stringify({ transaction_id: r[ROW.tx_lower] })}\n`);
      const c0 = process.cpuUsage();
      for (let at = 0; at < lines.length; at += batch) {
        writeSync(fd, lines.slice(at, at + batch).join(''));
        fdatasyncSync(fd);
      }
      const c = process.cpuUsage(c0);
      results.push((c.user + c.system) / lines.length);
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
    report('a JSON line appended, one fdatasync per batch', results, '');
  }
  for (const v of variants) {
    const results: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'dets-micro-floor-'));
      const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
      await store.close();
      const db = new Database(join(dir, 'console.db'));
      db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
      if (v.keep !== null) {
        const names = db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL",
          )
          .all() as { name: string }[];
        for (const { name } of names) if (!v.keep.includes(name)) db.exec(`DROP INDEX ${name}`);
      }
      const per = Math.min(ROWS_PER_INSERT, batch);
      // The writer's own statements (sql.ts), as writer-commit.ts runs them.
      const insertEvents = db.prepare(insertRowsSql(INTO_EVENTS, EVENT_COLUMNS, per));
      const insertText = db.prepare(insertRowsSql(INTO_TEXT, 2, per));
      // The statements' parameters are made before the clock starts: only SQLite and the binding count.
      let seq = 1;
      const chunks: { ev: unknown[]; tx: unknown[] }[] = [];
      for (let i = 0; i + per <= rows.length; i += per) {
        const ev: unknown[] = [];
        const tx: unknown[] = [];
        for (const r of rows.slice(i, i + per)) {
          const row = [...r] as EventRow;
          row[ROW.seq] = seq;
          if (v.recordChars !== null) row[ROW.record] = r[ROW.record].slice(0, v.recordChars);
          ev.push(...row.slice(0, EVENT_COLUMNS));
          tx.push(seq++, r[ROW.search]);
        }
        chunks.push({ ev, tx });
      }
      const perTransaction = batch / per;
      const c0 = process.cpuUsage();
      for (let at = 0; at < chunks.length; at += perTransaction) {
        db.exec('BEGIN');
        for (const { ev, tx } of chunks.slice(at, at + perTransaction)) {
          insertEvents.run(ev);
          if (v.text) insertText.run(tx);
        }
        db.exec('COMMIT');
      }
      const c = process.cpuUsage(c0);
      results.push((c.user + c.system) / (seq - 1));
      db.close();
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
    report(v.name, results, `; record ${v.recordChars ?? rows[0]![ROW.record].length} chars`);
  }
}

async function main(): Promise<void> {
  if (KIND === 'row-floor' || KIND === 'durable-floor') return floor(KIND === 'durable-floor');
  const dir = mkdtempSync(join(tmpdir(), 'dets-micro-'));
  const cap = process.env.MICRO_CALLBACK_CAP;
  const store = await openEventStore({
    dataDir: dir,
    events: new EventHub(),
    log: () => undefined,
    ...(cap ? { retention: { callback: Number(cap) } } : {}),
  });
  await store.integrity();
  const make = KIND === 'notification' ? notification : callback;
  // Warm up (JIT, statements), then measure.
  const run = async (n: number) => {
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < n; i += PER_TURN) {
      for (let j = i; j < Math.min(n, i + PER_TURN); j++)
        all.push(store.append(make(j), { durable: KIND === 'notification' }));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    await store.flush();
  };
  await run(Math.min(5000, N));
  await settle();
  // Rounds (MICRO_ROUNDS, default 5): the median and the lowest (least disturbed by other load) count.
  const rounds = Number(process.env.MICRO_ROUNDS ?? 5);
  const all: number[] = [];
  const mains: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // The cost of building the events alone (not the store's): subtracted below.
    const b0 = process.cpuUsage();
    for (let i = 0; i < N; i++) make(i);
    const build = process.cpuUsage(b0);
    const buildUs = build.user + build.system;
    const m0 = mainThreadUs();
    const c0 = process.cpuUsage();
    await run(N);
    const cRun = process.cpuUsage(c0);
    await settle();
    const c = process.cpuUsage(c0);
    const mainUs = mainThreadUs() - m0;
    all.push((c.user + c.system - buildUs) / N);
    mains.push((mainUs - buildUs) / N);
    process.stdout.write(
      `  round ${round + 1}: ${all[round]!.toFixed(1)} µs/event all threads (${((cRun.user + cRun.system - buildUs) / N).toFixed(1)} until the last commit, the rest idle indexing and checkpoint), main thread ${mains[round]!.toFixed(1)}\n`,
    );
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  process.stdout.write(
    `${KIND}: ${N} events × ${rounds} rounds: CPU all threads median ${med(all).toFixed(1)} µs/event (lowest ${Math.min(...all).toFixed(1)}), main thread median ${med(mains).toFixed(1)} (lowest ${Math.min(...mains).toFixed(1)})\n`,
  );
  if (KIND === 'notification') {
    // 32 clients, each appending its next notification once the last is durable (as 32 connections do).
    const lat: number[] = [];
    const until = performance.now() + Number(process.env.MICRO_SECONDS ?? 8) * 1000;
    let n = 0;
    const c1 = process.cpuUsage();
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() < until) {
          const s = performance.now();
          await store.append(notification(), { durable: true });
          lat.push(performance.now() - s);
          n++;
        }
      }),
    );
    const secs = (performance.now() - t1) / 1000;
    const cc = process.cpuUsage(c1);
    lat.sort((a, b) => a - b);
    const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!.toFixed(2);
    process.stdout.write(
      `durable, 32 concurrent: ${(n / secs).toFixed(0)}/s, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms, CPU ${((cc.user + cc.system) / n).toFixed(1)} µs/event\n`,
    );
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

void main();
