import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { exportEvents, openEventStore, type EventStore } from '../../../electron/core/store';
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
    const file = path.join(dir, 'events', 'seg-000001.jsonl');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'events')).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(file, 'utf8')).toContain('tx-1');
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
    expect(store.hasTransaction('nope')).toBe(false);
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
    const a = await openStore(dir, { segmentBytes: 4096 });
    for (let k = 0; k < 60; k++)
      await a.store.append(callback({ obj: `o${k}`, transaction_id: `tx${k % 7}` }));
    const before = await a.store.query({ limit: 100 });
    const q2 = await a.store.query({ transaction_id: 'tx3' });
    await a.store.close();
    await expect(a.store.append(notification())).rejects.toThrow(/closed/);
    expect(fs.readdirSync(path.join(dir, 'events')).length).toBeGreaterThan(1);

    const b = await openStore(dir, { segmentBytes: 4096 });
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

  it('caps a record by truncating bodies with a marker', async () => {
    const { store } = await openStore(tempDir());
    const big = 'x'.repeat(600 * 1024);
    const s = await store.append(
      notification({
        request: { method: 'POST', headers: {}, body: big },
        response: { headers: {}, body: big },
      }),
      { durable: true },
    );
    const d = await store.get(s.id);
    expect(d.request!.body!.length).toBeLessThan(100 * 1024);
    expect(d.request!.body).toContain('truncated');
  });
});

describe('event store: damage and recovery', () => {
  it('truncates a torn last line and keeps going', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const ids: string[] = [];
    for (let k = 0; k < 5; k++) ids.push((await a.store.append(notification(), { durable: true })).id);
    await a.store.close();
    const file = path.join(dir, 'events', 'seg-000001.jsonl');
    fs.appendFileSync(file, '{"id":"e000000000006","at":"2026-');
    const b = await openStore(dir);
    expect((await b.store.query({})).total).toBe(5);
    expect(fs.readFileSync(file, 'utf8').endsWith('}\n')).toBe(true);
    const next = await b.store.append(notification(), { durable: true });
    expect(next.id).toBe('e000000000006');
    await b.store.close();
    // Zeros at the tail (a crash on some file systems) are a torn tail too.
    fs.appendFileSync(file, Buffer.alloc(100));
    const c = await openStore(dir);
    expect((await c.store.query({})).total).toBe(6);
  });

  it('opens read-only beside a writer: skips a half-written tail, repairs and creates nothing, refuses appends', async () => {
    // Nothing there yet: a read-only open creates no folder.
    const empty = tempDir();
    const none = await openEventStore({ dataDir: empty, events: new EventHub(), readOnly: true });
    expect((await none.query({})).total).toBe(0);
    expect(fs.existsSync(path.join(empty, 'events'))).toBe(false);
    await none.close();

    const dir = tempDir();
    const a = await openStore(dir);
    for (let k = 0; k < 3; k++) await a.store.append(notification(), { durable: true });
    const file = path.join(dir, 'events', 'seg-000001.jsonl');
    // The writer is in the middle of its next record.
    fs.appendFileSync(file, '{"id":"e000000000004","at":"2026-');
    const before = fs.readFileSync(file);
    const reader = await openEventStore({ dataDir: dir, events: new EventHub(), readOnly: true });
    expect((await reader.query({})).total).toBe(3);
    const scanned: string[] = [];
    for await (const e of reader.scan()) scanned.push(e.id);
    expect(scanned).toHaveLength(3);
    await expect(reader.append(notification())).rejects.toMatchObject({ message: /read-only/ });
    await reader.close();
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    await a.store.close();
  });

  it('refuses a damaged middle record with STATE_DAMAGED naming the file, untouched', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    for (let k = 0; k < 5; k++) await a.store.append(notification(), { durable: true });
    await a.store.close();
    const file = path.join(dir, 'events', 'seg-000001.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[2] = `${lines[2]!.slice(0, 40)}#garbage#${lines[2]!.slice(49)}`;
    fs.writeFileSync(file, lines.join('\n'));
    const bytes = fs.readFileSync(file);
    await expect(openEventStore({ dataDir: dir, events: new EventHub() })).rejects.toMatchObject({
      code: 'STATE_DAMAGED',
      message: expect.stringContaining(file),
    });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('an incomplete older segment is damage, not a torn tail', async () => {
    const dir = tempDir();
    const a = await openStore(dir, { segmentBytes: 2048 });
    for (let k = 0; k < 20; k++) await a.store.append(notification(), { durable: true });
    await a.store.close();
    const file = path.join(dir, 'events', 'seg-000001.jsonl');
    fs.truncateSync(file, fs.statSync(file).size - 5);
    await expect(openEventStore({ dataDir: dir, events: new EventHub() })).rejects.toMatchObject({
      code: 'STATE_DAMAGED',
    });
  });
});

describe('event store: retention', () => {
  it('keeps the newest maxEvents and deletes whole old segments', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { segmentBytes: 2048, retention: { maxEvents: 30 } });
    const ids: string[] = [];
    for (let k = 0; k < 100; k++)
      ids.push((await store.append(notification({ transaction_id: `t${k}` }))).id);
    await store.flush();
    const page = await store.query({ limit: 1000 });
    expect(page.total).toBe(30);
    expect(page.events.map((e) => e.id)).toEqual(ids.slice(70).reverse());
    expect(store.hasTransaction('t0')).toBe(false);
    expect(store.hasTransaction('t99')).toBe(true);
    await expect(store.get(ids[0]!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const segs = fs.readdirSync(path.join(dir, 'events')).sort();
    expect(segs[0]).not.toBe('seg-000001.jsonl');
    await store.close();
    const again = await openStore(dir, { segmentBytes: 2048, retention: { maxEvents: 30 } });
    expect((await again.store.query({ limit: 1000 })).events.map((e) => e.id)).toEqual(
      ids.slice(70).reverse(),
    );
  });

  it('stays exact past many trims (the index compacts its arrays)', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { segmentBytes: 64 * 1024, retention: { maxEvents: 1000 } });
    const ids: string[] = [];
    for (let k = 0; k < 12_000; k += 500) {
      const batch = Array.from({ length: 500 }, (_, j) =>
        store.append(notification({ transaction_id: `t${(k + j) % 1500}`, obj: `o${k + j}` })),
      );
      for (const s of await Promise.all(batch)) ids.push(s.id);
    }
    await store.flush();
    const live = ids.slice(-1000);
    const page = await store.query({ limit: 10_000 });
    expect(page.total).toBe(1000);
    expect(page.events.map((e) => e.id)).toEqual([...live].reverse());
    expect((await store.get(live[0]!)).obj).toBe('o11000');
    await expect(store.get(ids[10_999]!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // t0..t1499 repeat every 1500 events: the live 11000..11999 carry t500..t1499 (and t1400..).
    expect(store.hasTransaction('t499')).toBe(false);
    expect(store.hasTransaction('t500')).toBe(true);
    expect((await store.query({ transaction_id: 't600' })).events.map((e) => e.obj)).toEqual(['o11100']);
    const p2 = await store.query({ limit: 10, before: live[500]! });
    expect(p2.events.map((e) => e.id)).toEqual(live.slice(490, 500).reverse());
  });

  it('keeps the bytes under maxBytes by deleting the oldest segments', async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { segmentBytes: 2048, retention: { maxBytes: 8192 } });
    for (let k = 0; k < 100; k++) await store.append(notification());
    await store.flush();
    const total = fs
      .readdirSync(path.join(dir, 'events'))
      .reduce((n, f) => n + fs.statSync(path.join(dir, 'events', f)).size, 0);
    expect(total).toBeLessThanOrEqual(8192 + 2048);
    const page = await store.query({ limit: 1000 });
    expect(page.total).toBeGreaterThan(0);
    expect(page.total).toBeLessThan(100);
    expect(page.events[0]!.id).toBe('e000000000100');
  });
});
