/**
 * A profile of many events built fast for the bench (the store suite's million, the UI suite's
 * 100,000): the writer's own statements over rows made by records.ts, in big transactions.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventHub } from '../../../electron/core/event-hub';
import { blankEvent, formatEventId, openEventStore } from '../../../electron/core/store';
import { dbFile, type Database } from '../../../electron/core/store/db';
import {
  DEFAULT_MAX_RECORD_BYTES,
  ROW,
  UNINDEXED_KINDS,
  toRow,
  type RetentionClass,
} from '../../../electron/core/store/records';
import {
  INSERT_EVENT_SQL,
  INSERT_TEXT_SQL,
  INSERT_UNINDEXED_TEXT_SQL,
} from '../../../electron/core/store/sql';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { BenchBroken } from './errors';

/** Rows per build transaction. */
const BATCH = 50_000;
export const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Event `i` of `n` over a year from `start`: notifications, and every fourth a judged /user_auth
 * callback; `needle` (when given) is in its transaction_id or obj, for a search to find.
 */
export function yearEvent(i: number, n: number, start: number, needle: string | null): EventDetail {
  const at = new Date(start + Math.floor((i * YEAR_MS) / n)).toISOString();
  const id = formatEventId(i + 1);
  if (i % 4 === 3) {
    const obj = needle ?? `cust-${(i * 7919) % 1000}`;
    return {
      ...blankEvent('callback', at),
      id,
      path: '/user_auth',
      method: 'GET',
      status: 200,
      obj,
      sub: `${obj}@bank.example`,
      duration_ms: 0.4,
      remote: '127.0.0.1',
      request: { method: 'GET', url: '/user_auth', headers: { 'x-session-id': '[masked]' }, body: null },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ obj, first_name: 'Ada', last_name: 'Lovelace', email: `${obj}@bank.example` }),
      },
      data: { verdict: { detail: null } },
    };
  }
  const tx = needle ? `${needle}-${randomUUID().slice(needle.length + 1)}` : randomUUID();
  return {
    ...blankEvent('notification', at),
    id,
    path: '/api/svc/notify/pay-in',
    method: 'POST',
    status: 200,
    outcome: 'accepted',
    transaction_id: tx,
    duration_ms: 2.1,
    remote: '127.0.0.1',
    request: {
      method: 'POST',
      url: '/api/svc/notify/pay-in',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: tx }),
    },
    response: { status: 200, headers: {}, body: '' },
  };
}

/**
 * Builds a profile in `dataDir` of `n` events, event `i` being `eventAt(i)`: the store makes the
 * database as any profile gets it, then rows made by records.ts toRow go in with the writer's own
 * statements, BATCH to a transaction (fast, and the same rows the console writes). Throws
 * BenchBroken past `maxSeconds`. Returns the build time, ms.
 */
export async function buildProfile(options: {
  /** The repository root (libsql is loaded from its node_modules). */
  root: string;
  dataDir: string;
  n: number;
  eventAt: (i: number) => EventDetail;
  maxSeconds: number;
  /** Names the suite in errors. */
  suite: string;
  log: (line: string) => void;
}): Promise<number> {
  const { root, dataDir, n, eventAt, maxSeconds, log } = options;
  const t0 = performance.now();
  // The store makes the database (schema, migrations) as any profile gets it; then it closes.
  await (await openEventStore({ dataDir, events: new EventHub() })).close();
  const Ctor = createRequire(join(root, 'package.json'))('libsql') as new (file: string) => Database;
  const db = new Ctor(dbFile(dataDir));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF'); // a build, not a commit anyone was promised
    const insert = db.prepare(INSERT_EVENT_SQL);
    const insertText = db.prepare(INSERT_TEXT_SQL);
    const insertUnindexed = db.prepare(INSERT_UNINDEXED_TEXT_SQL);
    const stats = new Map<RetentionClass, { count: number; bytes: number }>();
    for (let from = 0; from < n; from += BATCH) {
      if (performance.now() - t0 > maxSeconds * 1000)
        throw new BenchBroken(
          `${options.suite} suite: building the profile took over ${maxSeconds} s (at ${from} of ${n})`,
        );
      db.exec('BEGIN');
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        const { row: r } = toRow(eventAt(i), i + 1, DEFAULT_MAX_RECORD_BYTES);
        // The row is the statement's parameters, by place (sql.ts INSERT_EVENT_SQL).
        insert.run(r);
        const size = r[ROW.size];
        const cls = r[ROW.cls];
        // Where the writer puts it: a callback's text never goes into the index (sql.ts version 6).
        const search = r[ROW.search];
        if (search && UNINDEXED_KINDS.includes(r[ROW.kind]))
          insertUnindexed.run(r[ROW.seq], search.toLowerCase());
        else if (search) insertText.run(r[ROW.seq], search);
        const s = stats.get(cls) ?? { count: 0, bytes: 0 };
        s.count += 1;
        s.bytes += size;
        stats.set(cls, s);
      }
      const cs = db.prepare(
        `INSERT INTO class_stats (class, count, bytes) VALUES (?, ?, ?)
         ON CONFLICT (class) DO UPDATE SET count = excluded.count, bytes = excluded.bytes`,
      );
      for (const [cls, s] of stats) cs.run(cls, s.count, s.bytes);
      db.prepare(
        "INSERT INTO meta (key, value) VALUES ('high_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(String(Math.min(n, from + BATCH)));
      db.exec('COMMIT');
      if ((from / BATCH) % 4 === 3 || from + BATCH >= n)
        log(
          `  built ${Math.min(n, from + BATCH)} of ${n} events (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
        );
      await new Promise((r) => setImmediate(r)); // let a SIGINT in
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return performance.now() - t0;
}
