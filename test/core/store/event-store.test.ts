import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { exportEvents, openEventStore, type EventStore } from '../../../electron/core/store';
import { newestSql, scanChunkSql, whereOf } from '../../../electron/core/store/reader';
import { SINCE_FIRST_SEQ_SQL, acceptedAmongSql } from '../../../electron/core/store/sql';
import Database from 'libsql';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const open: EventStore[] = [];
async function openStore(dataDir: string, extra: Record<string, unknown> = {}) {
  const events = new EventHub();
  const store = await openEventStore({ dataDir, events, ...extra });
  open.push(store);
  return { store, events };
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe('event store: append, get, query', () => {
  it('appends durably, emits events.appended, and get returns the whole record', async () => {
    const dir = tempDir();
    const { store, events } = await openStore(dir);
    const seen: string[] = [];
    events.on('events.appended', (s) => seen.push(s.id));
    const s = await store.append(notification({ transaction_id: 'tx-1' }), { durable: true });
    expect(s.id).toMatch(/^e\d{12}$/);
    expect(seen).toEqual([s.id]);
    const d = await store.get(s.id);
    expect(d.transaction_id).toBe('tx-1');
    expect(d.request?.body).toBe('{}');
    await expect(store.get('e999999999999')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const file = path.join(dir, 'console.db');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    // Any engineer can open it with sqlite3: the record is plain JSON in a plain table.
    const db = new Database(file, { readonly: true });
    const row = db.prepare('SELECT kind, tx_lower, record FROM events').get() as Record<string, string>;
    db.close();
    expect(row.kind).toBe('notification');
    expect(JSON.parse(row.record!).transaction_id).toBe('tx-1');
  });

  it('filters by each field, newest first, with totals and paging', async () => {
    const { store } = await openStore(tempDir());
    const base = Date.parse('2026-01-01T00:00:00Z');
    const at = (k: number) => new Date(base + k * 60_000).toISOString();
    await store.append(notification({ at: at(0), transaction_id: 'AAA-1' }), { durable: true });
    await store.append(notification({ at: at(1), transaction_id: 'AAA-1', outcome: 'repeat' }));
    await store.append(notification({ at: at(2), transaction_id: null, outcome: 'rejected', status: 400 }));
    await store.append(callback({ at: at(3), failed_check: 'signature', status: 401 }));
    await store.append(
      callback({ at: at(4), path: '/key', failed_check: 'exp', warning: 'Sub Not Checked' }),
    );
    await store.append(callback({ at: at(5), path: '/external_id', obj: 'Bob' }));
    await store.append({ ...notification({ at: at(6) }), kind: 'exchange', path: null, outcome: null });
    await store.flush();

    const all = await store.query({});
    expect(all.total).toBe(7);
    expect(all.events.map((e) => e.at)).toEqual([6, 5, 4, 3, 2, 1, 0].map(at));
    expect((await store.query({ kind: 'notification' })).total).toBe(3);
    expect((await store.query({ kind: 'callback' })).total).toBe(3);
    expect((await store.query({ path: '/key' })).events.map((e) => e.failed_check)).toEqual(['exp']);
    expect((await store.query({ path: '/nope' })).total).toBe(0);
    expect((await store.query({ outcome: 'repeat' })).total).toBe(1);
    expect((await store.query({ failed: true })).total).toBe(2);
    expect((await store.query({ failed_check: 'signature' })).total).toBe(1);
    expect((await store.query({ transaction_id: 'AAA-1' })).total).toBe(2);
    expect((await store.query({ text: 'aaa' })).total).toBe(2);
    expect((await store.query({ text: 'not checked' })).total).toBe(1);
    expect((await store.query({ text: 'bob' })).total).toBe(1);
    expect((await store.query({ text: 'SIGNAT' })).total).toBe(1);
    expect((await store.query({ text: 'external' })).total).toBe(1);
    // A search driven by the index: combined with other filters, paged newest first, and the
    // newest N of a scan, oldest first.
    const cb = await store.query({ text: '127.0', kind: 'callback', limit: 2 });
    expect(cb.total).toBe(3);
    expect(cb.events.map((e) => e.at)).toEqual([at(5), at(4)]);
    const next = await store.query({ text: '127.0', kind: 'callback', before: cb.events[1]!.id });
    expect(next.events.map((e) => e.at)).toEqual([at(3)]);
    const newest: string[] = [];
    for await (const e of store.scan({ text: 'aaa', last: 1 })) newest.push(e.at);
    expect(newest).toEqual([at(1)]);
    const both: string[] = [];
    for await (const e of store.scan({ text: 'aaa', last: 5 })) both.push(e.at);
    expect(both).toEqual([at(0), at(1)]);
    expect((await store.query({ since: at(2), until: at(4) })).total).toBe(3);
    expect((await store.query({ kind: 'callback', failed: true, path: '/key' })).total).toBe(1);

    const p1 = await store.query({ limit: 3 });
    expect(p1.total).toBe(7);
    expect(p1.events).toHaveLength(3);
    const p2 = await store.query({ limit: 3, before: p1.events[2]!.id });
    expect(p2.events.map((e) => e.at)).toEqual([3, 2, 1].map(at));
    const p3 = await store.query({ limit: 3, before: p2.events[2]!.id });
    expect(p3.events.map((e) => e.at)).toEqual([at(0)]);
    expect(p3.total).toBe(7);

    expect(store.hasTransaction('AAA-1')).toBe(true);
    expect(store.hasTransaction('aaa-1')).toBe(true);
    expect((await store.query({ transaction_id: 'aAa-1' })).total).toBe(2);
    expect(store.hasTransaction('nope')).toBe(false);
  });

  it('`after` an id answers what was stored after it, even an event that arrived earlier but was committed later', async () => {
    const { store } = await openStore(tempDir());
    const base = Date.parse('2026-01-01T00:00:00Z');
    const at = (s: number) => new Date(base + s * 1000).toISOString();
    const first = await store.append(callback({ at: at(10) }), { durable: true });
    // Arrived at 5 s (a notification waiting for its commit, or another process), stored second.
    const late = await store.append(notification({ at: at(5), transaction_id: 'late-1' }), { durable: true });
    const third = await store.append(callback({ at: at(11), path: '/key' }), { durable: true });
    // By time, a list whose newest row is `first` would never see `late`.
    const bySince = await store.query({ since: at(10) });
    expect(bySince.events.map((e) => e.id)).not.toContain(late.id);
    const page = await store.query({ after: first.id });
    expect(page.events.map((e) => e.id)).toEqual([third.id, late.id]);
    expect(page.total).toBe(2);
    // With other filters, and counted by the same rule in stats.
    expect((await store.query({ after: first.id, kind: 'notification' })).events.map((e) => e.id)).toEqual([
      late.id,
    ]);
    expect((await store.stats({ query: { after: late.id } })).total).toBe(1);
    expect((await store.query({ after: third.id })).total).toBe(0);
    // With a search: the plain text of callbacks and notifications and the index of exchanges alike.
    const ex = await store.append(
      {
        ...notification({ at: at(12), transaction_id: null, obj: 'SEEK-ex' }),
        kind: 'exchange',
        outcome: null,
      },
      { durable: true },
    );
    const cb = await store.append(callback({ at: at(13), obj: 'SEEK-cb' }), { durable: true });
    const found = await store.query({ after: late.id, text: 'seek-' });
    expect(found.events.map((e) => e.id)).toEqual([cb.id, ex.id]);
    expect(found.total).toBe(2);
    expect((await store.query({ after: ex.id, text: 'seek-' })).events.map((e) => e.id)).toEqual([cb.id]);
    await expect(store.query({ after: 'yesterday' })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringContaining('after: yesterday is not an event id'),
    });
  });

  it("reads a kind in seq order through events_kind_seq: a page's newest and `events --kind` never sort every event of the kind", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir);
    await store.append(notification({ transaction_id: 'tx-plan' }), { durable: true });
    await store.append(callback({}), { durable: true });
    const db = new Database(path.join(dir, 'console.db'), { readonly: true });
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join(' | ');
    try {
      for (const kind of ['notification', 'callback'] as const) {
        const where = whereOf({ kind });
        const source = where.sources[0]!;
        // The page's first page, and the next one (`before`).
        for (const op of [undefined, '<'] as const) {
          const p = plan(newestSql(source, 'seq, at', op), ...source.params, ...(op ? [10] : []), 100);
          expect(p).toMatch(/USING (COVERING )?INDEX events_kind_seq \(kind=\?/);
          expect(p).not.toMatch(/TEMP B-TREE/);
        }
        // `events --kind` (store.scan), chunk after chunk.
        const s = plan(scanChunkSql(where.sql), 0, ...where.params);
        expect(s).toMatch(/INDEX events_kind_seq \(kind=\? AND rowid>\?\)/);
        expect(s).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      db.close();
    }
    expect((await store.query({ kind: 'notification' })).events.map((e) => e.transaction_id)).toEqual([
      'tx-plan',
    ]);
  });

  it("scan({since}) starts at the window's lowest seq, read from the at_ms index, and misses no event of the window", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir);
    const base = Date.parse('2026-01-01T00:00:00Z');
    const at = (s: number) => new Date(base + s * 1000).toISOString();
    // Times out of seq order: 50 s stored before 20 s, 45 s after 60 s.
    for (const s of [10, 50, 20, 30, 60, 45, 5]) await store.append(callback({ at: at(s), obj: `o${s}` }));
    const objs = async (since: string) => {
      const out: string[] = [];
      for await (const e of store.scan({ since })) out.push(String(e.obj));
      return out;
    };
    expect(await objs(at(30))).toEqual(['o50', 'o30', 'o60', 'o45']);
    expect(await objs(at(0))).toEqual(['o10', 'o50', 'o20', 'o30', 'o60', 'o45', 'o5']);
    expect(await objs(at(61))).toEqual([]);
    // With --limit (last) and a kind, the same window.
    const last: string[] = [];
    for await (const e of store.scan({ since: at(30), kind: 'callback', last: 2 })) last.push(String(e.obj));
    expect(last).toEqual(['o60', 'o45']);
    const db = new Database(path.join(dir, 'console.db'), { readonly: true });
    try {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${SINCE_FIRST_SEQ_SQL}`).all(0) as { detail: string }[])
        .map((r) => r.detail)
        .join(' | ');
      expect(plan).toMatch(/INDEX events_at \(at_ms>\?\)/);
    } finally {
      db.close();
    }
  });

  it('group commit: concurrent durable appends all land, ids unique and increasing', async () => {
    const { store } = await openStore(tempDir());
    const done = await Promise.all(
      Array.from({ length: 500 }, (_, k) =>
        store.append(notification({ transaction_id: `t${k}` }), { durable: true }),
      ),
    );
    const ids = done.map((d) => d.id);
    expect(new Set(ids).size).toBe(500);
    expect([...ids].sort()).toEqual(ids);
    expect((await store.query({})).total).toBe(500);
  });

  it('survives a restart: same ids, same answers, new ids continue after the old ones', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    for (let k = 0; k < 60; k++)
      await a.store.append(callback({ obj: `o${k}`, transaction_id: `tx${k % 7}` }));
    const before = await a.store.query({ limit: 100 });
    const q2 = await a.store.query({ transaction_id: 'tx3' });
    await a.store.close();
    await expect(a.store.append(notification())).rejects.toThrow(/closed/);

    const b = await openStore(dir);
    // Repeat detection across a restart, whatever the letter case (DESIGN.md "Bank endpoints").
    expect(b.store.hasTransaction('TX3')).toBe(true);
    expect(b.store.hasTransaction('tx7')).toBe(false);
    expect(await b.store.query({ limit: 100 })).toEqual(before);
    expect(await b.store.query({ transaction_id: 'tx3' })).toEqual(q2);
    expect((await b.store.get(before.events[59]!.id)).obj).toBe('o0');
    const next = await b.store.append(notification(), { durable: true });
    expect(next.id > before.events[0]!.id).toBe(true);
    const scanned: string[] = [];
    for await (const e of b.store.scan()) scanned.push(e.id);
    expect(scanned).toEqual([...before.events.map((e) => e.id)].reverse().concat(next.id));
    const kinds: string[] = [];
    for await (const e of b.store.scan({ kind: 'notification' })) kinds.push(e.id);
    expect(kinds).toEqual([next.id]);
  });

  it('refuses a bad kind or unserializable data without burning an id; keeps an odd `at` as given', async () => {
    const { store } = await openStore(tempDir());
    await expect(store.append({ ...notification(), kind: 'bogus' as never })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
    });
    await expect(store.append({ ...notification(), data: { n: 1n } })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
    });
    const pending = store.append(notification({ at: '2026-01-01T01:00:00+01:00', transaction_id: 'p-1' }));
    expect(store.hasTransaction('p-1')).toBe(true); // visible before it is written
    const s = await pending;
    expect(s.id).toBe('e000000000001');
    expect(s.at).toBe('2026-01-01T01:00:00+01:00');
    expect((await store.query({ until: '2026-01-01T00:00:00Z' })).events.map((e) => e.at)).toEqual([s.at]);
  });

  it('exports past one page (export.ts asks for up to 100,000), oldest first', async () => {
    const { store } = await openStore(tempDir());
    await Promise.all(
      Array.from({ length: 10_050 }, (_, k) => store.append(notification({ transaction_id: `x${k}` }))),
    );
    const csv = await exportEvents(store, 'csv', {});
    expect(csv.count).toBe(10_050);
    expect(csv.text.split('\r\n')[1]).toContain('x0');
    const json = await exportEvents(store, 'json', { transaction_id: 'x7' });
    expect(json.count).toBe(1);
    expect(JSON.parse(json.text).request.body).toBe('{}');
  });

  it('close() writes and syncs what is pending, then refuses appends', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const pending = Array.from({ length: 300 }, (_, k) =>
      a.store.append(notification({ transaction_id: `c${k}` })),
    );
    await a.store.close();
    expect((await Promise.all(pending)).length).toBe(300);
    await expect(a.store.append(notification(), { durable: true })).rejects.toThrow(/closed/);
    const b = await openStore(dir);
    expect((await b.store.query({})).total).toBe(300);
    expect(b.store.hasTransaction('c299')).toBe(true);
  });

  it('bounds bodies at 64 KiB keeping their size, and caps a record by truncating bodies with a marker', async () => {
    const big = 'x'.repeat(600 * 1024);
    const record = notification({
      request: { method: 'POST', headers: {}, body: big },
      response: { headers: {}, body: big },
    });
    // DESIGN.md "Storage": every stored body is cut at 64 KiB, its size as received kept.
    const { store } = await openStore(tempDir());
    const d = await store.get((await store.append(record, { durable: true })).id);
    expect(d.request!.body).toBe(big.slice(0, 64 * 1024));
    expect(d.request!.cut).toEqual({ body_bytes: 600 * 1024 });
    // A record still over the store's cap has its bodies truncated with a marker.
    const { store: small } = await openStore(tempDir(), { maxRecordBytes: 32 * 1024 });
    const c = await small.get((await small.append(record, { durable: true })).id);
    expect(c.request!.body!.length).toBeLessThan(32 * 1024);
    expect(c.request!.body).toContain('truncated');
  });
});

describe('event store: readers beside the writer', () => {
  it('opens read-only beside a writer: creates nothing on an empty profile, sees commits, refuses appends', async () => {
    // Nothing there yet: a read-only open creates no file.
    const empty = tempDir();
    const none = await openEventStore({ dataDir: empty, events: new EventHub(), readOnly: true });
    expect((await none.query({})).total).toBe(0);
    expect(fs.readdirSync(empty)).toEqual([]);
    await none.close();

    const dir = tempDir();
    const a = await openStore(dir);
    for (let k = 0; k < 3; k++) await a.store.append(notification(), { durable: true });
    const reader = await openEventStore({ dataDir: dir, events: new EventHub(), readOnly: true });
    expect((await reader.query({})).total).toBe(3);
    await a.store.append(notification({ transaction_id: 'later' }), { durable: true });
    // A commit of the writer is visible to the reader's next query (WAL).
    expect((await reader.query({})).total).toBe(4);
    expect(reader.hasTransaction('LATER')).toBe(true);
    const scanned: string[] = [];
    for await (const e of reader.scan()) scanned.push(e.id);
    expect(scanned).toHaveLength(4);
    const tail: string[] = [];
    for await (const e of reader.scan({ afterId: scanned[1] })) tail.push(e.id);
    expect(tail).toEqual(scanned.slice(2));
    await expect(reader.append(notification())).rejects.toMatchObject({ message: /read-only/ });
    await reader.close();
    expect(a.store.health().state).toBe('ok');
    expect(await a.store.integrity()).toEqual([]);
  });
});

describe('event store: two writers on one profile', () => {
  it('serve beside the desktop app: both append to one file, every event kept, ids unique', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const b = await openStore(dir);
    const appended = await Promise.all(
      Array.from({ length: 400 }, (_, k) =>
        (k % 2 ? a : b).store.append(notification({ transaction_id: `two-${k}` }), { durable: true }),
      ),
    );
    const ids = appended.map((s) => s.id);
    expect(new Set(ids).size).toBe(400);
    expect((await a.store.query({ limit: 1 })).total).toBe(400);
    for (const s of appended) expect((await b.store.get(s.id)).transaction_id).toBe(s.transaction_id);
    expect(a.store.hasTransaction('TWO-2')).toBe(true);
  });
});

describe('event store: retention per class', () => {
  it('caps callbacks oldest first and never touches acknowledged notifications', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { retention: { callback: 30, refused: 10 } });
    const acked: string[] = [];
    for (let k = 0; k < 20; k++)
      acked.push((await store.append(notification({ transaction_id: `n${k}` }), { durable: true })).id);
    const ids = (
      await Promise.all(Array.from({ length: 100 }, (_, k) => store.append(callback({ obj: `o${k}` }))))
    ).map((e) => e.id);
    await Promise.all(
      Array.from({ length: 50 }, () => store.append(callback({ failed_check: 'present', token: null }))),
    );
    await store.flush();
    const cb = await store.query({ kind: 'callback', failed: false, limit: 1000 });
    expect(cb.total).toBe(30);
    expect(cb.events.map((e) => e.id)).toEqual(ids.slice(70).reverse());
    await expect(store.get(ids[0]!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await store.query({ failed_check: 'present' })).total).toBe(10);
    const n = await store.query({ kind: 'notification', limit: 1000 });
    expect(n.events.map((e) => e.id)).toEqual([...acked].reverse());
    await store.close();
    // Ids never repeat, even when the newest rows were trimmed.
    const again = await openStore(dir, { retention: { callback: 30, refused: 10 } });
    const next = await again.store.append(notification(), { durable: true });
    expect(next.id > ids[99]!).toBe(true);
  });

  it('stores a request refused before any check as a compact record: route, time, remote, reason, sizes', async () => {
    const { store } = await openStore(tempDir());
    const s = await store.append(
      callback({
        failed_check: 'structure',
        status: 401,
        token: null,
        request: {
          method: 'GET',
          url: '/user_auth',
          headers: { 'x-big': 'h'.repeat(15_000) },
          body: 'b'.repeat(5000),
        },
        response: { status: 401, headers: {}, body: '{"error":"unauthorized","check":"structure"}' },
        checks: [
          {
            id: 'structure',
            title: 'Compact JWS',
            status: 'failed',
            detail: 'not three dot-separated parts',
          },
        ],
      }),
    );
    const d = await store.get(s.id);
    expect(d).toMatchObject({
      path: '/user_auth',
      status: 401,
      failed_check: 'structure',
      remote: '127.0.0.1',
      request: null,
      response: null,
      data: {
        compact: true,
        reason: 'structure: not three dot-separated parts',
        request_body_bytes: 5000,
      },
    });
    expect(JSON.stringify(d).length).toBeLessThan(2000);
    expect((await store.query({ text: 'dot-separated' })).total).toBe(1);
  });
});

describe('event store: full-text search across indexed and pending text (sql.ts version 5)', () => {
  it('finds, counts and pages the same whether an event is in the index yet or not', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir);
    // Exchanges are an indexed kind (callbacks and notifications are scanned: version 7).
    const exchange = (tx: string) => ({ ...notification({ transaction_id: tx }), kind: 'exchange' as const });
    const pendingRows = () => {
      const db = new Database(path.join(dir, 'console.db'), { readonly: true });
      try {
        return Number((db.prepare('SELECT count(*) AS n FROM events_fts_pending').get() as { n: number }).n);
      } finally {
        db.close();
      }
    };
    for (let i = 0; i < 3; i++) await store.append(exchange(`Old-Ünïque-${i}`), { durable: true });
    // The writer indexes pending text once idle; wait for it (bounded).
    for (let i = 0; i < 200 && pendingRows() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(pendingRows()).toBe(0);
    for (let i = 0; i < 2; i++) await store.append(exchange(`NEW-ÜNÏQUE-${i}`), { durable: true });
    expect(pendingRows()).toBe(2);

    const all = await store.query({ text: 'ünïque' });
    expect(all.total).toBe(5);
    expect(all.events.map((e) => e.transaction_id)).toEqual([
      'NEW-ÜNÏQUE-1',
      'NEW-ÜNÏQUE-0',
      'Old-Ünïque-2',
      'Old-Ünïque-1',
      'Old-Ünïque-0',
    ]);
    const page = await store.query({ text: 'UNÏQUE', limit: 3 });
    expect(page.total).toBe(0); // Ü is not U
    const first = await store.query({ text: 'Ünïque', kind: 'exchange', limit: 3 });
    expect(first.total).toBe(5);
    const rest = await store.query({ text: 'Ünïque', limit: 3, before: first.events[2]!.id });
    expect(rest.events.map((e) => e.transaction_id)).toEqual(['Old-Ünïque-1', 'Old-Ünïque-0']);
    const stats = await store.stats({ query: { text: 'ünïque' }, by: 'outcome' });
    expect(stats.total).toBe(5);
    expect(stats.groups).toEqual([{ value: 'accepted', count: 5 }]);
    const newest: (string | null)[] = [];
    for await (const e of store.scan({ text: 'ünïque', last: 3 })) newest.push(e.transaction_id);
    expect(newest).toEqual(['Old-Ünïque-2', 'NEW-ÜNÏQUE-0', 'NEW-ÜNÏQUE-1']);
    const every: (string | null)[] = [];
    for await (const e of store.scan({ text: 'ünïque' })) every.push(e.transaction_id);
    expect(every).toHaveLength(5);
  });
});

describe('event store: callbacks and notifications searched in their plain text table (sql.ts versions 6, 7)', () => {
  it('finds and counts them exactly beside indexed kinds, and trimming removes their text', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { retention: { callback: 3, rejected: 1 } });
    const count = (sql: string) => {
      const db = new Database(path.join(dir, 'console.db'), { readonly: true });
      try {
        return Number((db.prepare(sql).get() as { n: number }).n);
      } finally {
        db.close();
      }
    };
    const pending = 'SELECT count(*) AS n FROM events_fts_pending';
    for (let i = 0; i < 4; i++) await store.append(callback({ obj: `Shared-Obj-${i}` }));
    for (let i = 0; i < 2; i++)
      await store.append(notification({ transaction_id: `shared-obj-tx-${i}` }), { durable: true });
    // Two rejected notifications under a cap of one: the older is trimmed, its text with it.
    for (let i = 0; i < 2; i++)
      await store.append(notification({ outcome: 'rejected', transaction_id: `shared-obj-bad-${i}` }), {
        durable: true,
      });
    // An exchange is indexed: its text waits pending, then the idle writer moves it (bounded wait).
    await store.append({ ...notification(), kind: 'exchange', outcome: null, path: '/shared-obj-exchange' });
    for (let i = 0; i < 200 && count(pending) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(count(pending)).toBe(0);
    // 3 callbacks (the oldest trimmed by its cap), 2 accepted notifications, 1 rejected: all plain.
    expect(count('SELECT count(*) AS n FROM events_text')).toBe(6);
    expect(count('SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH \'"shared-obj-"\'')).toBe(1);

    const all = await store.query({ text: 'shared-OBJ' });
    expect(all.total).toBe(7);
    expect(all.events.map((e) => e.obj ?? e.transaction_id ?? e.path)).toEqual([
      '/shared-obj-exchange',
      'shared-obj-bad-1',
      'shared-obj-tx-1',
      'shared-obj-tx-0',
      'Shared-Obj-3',
      'Shared-Obj-2',
      'Shared-Obj-1',
    ]);
    const callbacks = await store.query({ text: 'shared-obj', kind: 'callback', limit: 2 });
    expect(callbacks.total).toBe(3);
    expect(callbacks.events.map((e) => e.obj)).toEqual(['Shared-Obj-3', 'Shared-Obj-2']);
    const rest = await store.query({ text: 'shared-obj', kind: 'callback', before: callbacks.events[1]!.id });
    expect(rest.events.map((e) => e.obj)).toEqual(['Shared-Obj-1']);
    expect((await store.query({ text: 'SHARED-OBJ-TX', kind: 'notification' })).total).toBe(2);
    expect((await store.query({ text: 'shared-obj', kind: 'notification' })).total).toBe(3);
    expect((await store.query({ text: 'shared-obj', kind: 'exchange' })).total).toBe(1);
    expect((await store.query({ text: 'kid-1' })).total).toBe(3);
    const stats = await store.stats({ query: { text: 'shared-obj' }, by: 'outcome' });
    expect(stats.total).toBe(7);
    const every: (string | null)[] = [];
    for await (const e of store.scan({ text: 'shared-obj', kind: 'callback' })) every.push(e.obj);
    expect(every).toEqual(['Shared-Obj-1', 'Shared-Obj-2', 'Shared-Obj-3']);
  });
});

describe('event store: repeatCheck decides accepted or repeat inside the commit', () => {
  it('finds an earlier acceptance in any letter case, from another writer or the same batch, and never a rejected one', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const b = await openStore(dir);
    const check = { durable: true, repeatCheck: true };
    const rejected = await a.store.append(
      notification({ transaction_id: 'TX-R', outcome: 'rejected' }),
      check,
    );
    expect(rejected.outcome).toBe('rejected');
    expect((await a.store.append(notification({ transaction_id: 'tx-r' }), check)).outcome).toBe('accepted');
    const first = await a.store.append(notification({ transaction_id: 'TX-A' }), check);
    expect(first.outcome).toBe('accepted');
    // Another writer of the same profile (serve beside the desktop app), another letter case.
    const again = await b.store.append(notification({ transaction_id: 'tx-a' }), check);
    expect(again.outcome).toBe('repeat');
    const stored = await b.store.get(again.id);
    expect(stored.outcome).toBe('repeat');
    expect(stored.transaction_id).toBe('tx-a');
    expect((await b.store.query({ kind: 'notification', outcome: 'repeat' })).total).toBe(1);
    // Two in one group commit: the first is taken, the second repeats it.
    const [x, y] = await Promise.all([
      b.store.append(notification({ transaction_id: 'TX-B' }), check),
      b.store.append(notification({ transaction_id: 'Tx-B' }), check),
    ]);
    expect([x.outcome, y.outcome]).toEqual(['accepted', 'repeat']);
    // Without repeatCheck the producer's outcome stands.
    expect((await a.store.append(notification({ transaction_id: 'TX-A' }), { durable: true })).outcome).toBe(
      'accepted',
    );
  });

  it('looks the ids up in events_tx, never by walking every accepted notification', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir);
    await store.append(notification({ transaction_id: 'TX-1' }), { durable: true });
    const db = new Database(path.join(dir, 'console.db'), { readonly: true });
    try {
      const plan = (
        db.prepare(`EXPLAIN QUERY PLAN ${acceptedAmongSql(3)}`).all(['tx-1', 'tx-2', 'tx-3']) as {
          detail: string;
        }[]
      )
        .map((r) => r.detail)
        .join(' | ');
      expect(plan).toMatch(/SEARCH events USING INDEX events_tx \(tx_lower=\?\)/);
      expect(plan).not.toMatch(/events_kind_outcome|SCAN events/);
    } finally {
      db.close();
    }
  });
});
