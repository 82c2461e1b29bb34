import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { formatEventId, openEventStore } from '../../../electron/core/store';
import { openDatabase } from '../../../electron/core/store/db';
import { runBuiltCli } from '../../cli/helpers';
import { callback, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/**
 * A million events, built fast: the schema through openDatabase, then the rows by one SQL
 * statement inside SQLite (building them through append() is what `npm run bench` measures).
 * Nothing here asserts timings: open, totals and search results only.
 */
const N = 1_000_000;
const BASE_S = Date.parse('2026-01-01T00:00:00Z') / 1000;

/** The event at seq, as the SQL below builds it. */
function record(seq: number) {
  const cb = seq % 3 === 0;
  return {
    id: formatEventId(seq),
    at: new Date((BASE_S + seq) * 1000).toISOString(),
    kind: cb ? 'callback' : 'notification',
    path: cb ? (seq % 2 ? '/user_auth' : '/key') : '/api/svc/notify/pay-in',
    method: 'POST',
    status: cb && seq % 7 === 0 ? 401 : 200,
    outcome: cb ? null : seq % 11 === 0 ? 'repeat' : 'accepted',
    transaction_id: cb ? null : `tx-${seq % 150_000}`,
    failed_check: cb && seq % 7 === 0 ? 'signature' : null,
    obj: cb ? `cust-${seq % 5000}` : null,
    sub: null,
    duration_ms: 1,
    warning: null,
    remote: '127.0.0.1',
    request: null,
    response: null,
    checks: null,
    token: null,
    jwks: null,
    forward: null,
  };
}

const BUILD = `
  WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${N}),
  v AS (
    SELECT n,
      strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE_S} + n, 'unixepoch') AS at,
      n % 3 = 0 AS cb
    FROM c
  ),
  w AS (
    SELECT n, at, cb,
      CASE WHEN cb THEN 'callback' ELSE 'notification' END AS kind,
      CASE WHEN cb THEN (CASE WHEN n % 2 THEN '/user_auth' ELSE '/key' END) ELSE '/api/svc/notify/pay-in' END AS path,
      CASE WHEN cb AND n % 7 = 0 THEN 401 ELSE 200 END AS status,
      CASE WHEN cb THEN NULL WHEN n % 11 = 0 THEN 'repeat' ELSE 'accepted' END AS outcome,
      CASE WHEN cb THEN NULL ELSE 'tx-' || (n % 150000) END AS tx,
      CASE WHEN cb AND n % 7 = 0 THEN 'signature' END AS fc,
      CASE WHEN cb THEN 'cust-' || (n % 5000) END AS obj
    FROM v
  )
  INSERT INTO events (seq, at, at_ms, kind, class, path, method, status, outcome, transaction_id,
    tx_lower, failed_check, obj, sub, duration_ms, warning, remote, size, record)
  SELECT n, at, (${BASE_S} + n) * 1000, kind, CASE WHEN cb THEN 'callback' ELSE 'ack' END, path,
    'POST', status, outcome, tx, tx, fc, obj, NULL, 1, NULL, '127.0.0.1', 0,
    json_object('id', printf('e%012d', n), 'at', at, 'kind', kind, 'path', path, 'method', 'POST',
      'status', status, 'outcome', outcome, 'transaction_id', tx, 'failed_check', fc, 'obj', obj,
      'sub', NULL, 'duration_ms', 1, 'warning', NULL, 'remote', '127.0.0.1', 'request', NULL,
      'response', NULL, 'checks', NULL, 'token', NULL, 'jwks', NULL, 'forward', NULL)
  FROM w;
  INSERT INTO events_fts (rowid, text)
    SELECT seq, concat_ws(char(10), path, transaction_id, obj, failed_check, remote) FROM events;
  INSERT INTO class_stats (class, count, bytes) SELECT class, count(*), 0 FROM events GROUP BY class;
  INSERT INTO meta (key, value) VALUES ('high_seq', '${N}');
`;

describe('event store: a million events', () => {
  it(`opens ${N.toLocaleString('en')} events, answers queries with exact totals, and searches them`, async () => {
    const dataDir = tempDir();
    openDatabase(dataDir).close();
    const db = new Database(path.join(dataDir, 'console.db'));
    db.pragma('synchronous = OFF');
    db.exec('BEGIN');
    db.exec(BUILD);
    db.exec('COMMIT');
    db.close();

    const expected = (pred: (r: ReturnType<typeof record>) => boolean) => {
      let n = 0;
      for (let seq = 1; seq <= N; seq++) if (pred(record(seq))) n++;
      return n;
    };

    const store = await openEventStore({ dataDir, events: new EventHub() });
    try {
      const all = await store.query({ limit: 10 });
      expect(all.total).toBe(N);
      expect(all.events[0]!.id).toBe(formatEventId(N));
      expect((await store.query({ kind: 'callback', failed: true })).total).toBe(
        expected((r) => r.kind === 'callback' && r.failed_check !== null),
      );
      expect((await store.query({ outcome: 'repeat' })).total).toBe(expected((r) => r.outcome === 'repeat'));
      expect((await store.query({ text: 'CUST-4242' })).total).toBe(
        expected((r) => (r.obj ?? '').includes('cust-4242')),
      );
      expect((await store.query({ text: 'tx-14999', kind: 'notification' })).total).toBe(
        expected((r) => (r.transaction_id ?? '').includes('tx-14999')),
      );
      expect((await store.query({ transaction_id: 'TX-4243' })).total).toBe(
        expected((r) => r.transaction_id === 'tx-4243'),
      );
      expect(store.hasTransaction('Tx-4243')).toBe(true);
      expect(store.hasTransaction('tx-150000')).toBe(false);
      const since = new Date((BASE_S + N - 500) * 1000).toISOString();
      expect((await store.query({ since, kind: 'callback' })).total).toBe(
        expected((r) => r.kind === 'callback' && r.at >= since),
      );
      const page = await store.query({ path: '/key', before: formatEventId(100_000), limit: 50 });
      expect(page.total).toBe(expected((r) => r.path === '/key'));
      expect(page.events).toHaveLength(50);
      expect(page.events.every((e) => e.id < formatEventId(100_000) && e.path === '/key')).toBe(true);
      expect(await store.get(formatEventId(123_456))).toEqual(record(123_456));
      const next = await store.append(callback(), { durable: true });
      expect(next.id).toBe(formatEventId(N + 1));
    } finally {
      await store.close();
    }

    // The CLI over the same million: search, newest N, oldest first.
    const r = await runBuiltCli([
      'events',
      '--data-dir',
      dataDir,
      '--json',
      '--search',
      'cust-4242',
      '--limit',
      '3',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const listed = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; obj: string });
    const newest: string[] = [];
    for (let seq = N; newest.length < 3; seq--)
      if ((record(seq).obj ?? '').includes('cust-4242')) newest.unshift(formatEventId(seq));
    expect(listed.map((e) => e.id)).toEqual(newest);
  }, 300_000);
});
