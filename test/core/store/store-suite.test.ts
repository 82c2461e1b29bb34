/**
 * The store suite behind the EventStore interface, run against both stores (issue 30): the
 * profile's SQLite and the team hub's PostgreSQL 15 (a real cluster started on 127.0.0.1 for this
 * file, stopped by its PID). The same cases, the same expectations: durability under kill -9 of
 * the writer, repeats across restarts, retention, search, totals.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import {
  openEventStore,
  openPgEventStore,
  type EventStore,
  type Retention,
} from '../../../electron/core/store';
import { bundleChild, runUntilKilled } from '../../support/kill-child';
import { startPostgres, type TestPostgres } from '../../support/postgres';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

const here = path.dirname(fileURLToPath(import.meta.url));
let cluster: TestPostgres | null = null;
let child = '';
let dbCount = 0;

beforeAll(async () => {
  cluster = await startPostgres();
  child = await bundleChild(
    path.join(here, 'fixtures', 'append-child.ts'),
    path.join(tempDir(), 'append-child.mjs'),
  );
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  removeTempDirs();
});

/** One place a store lives: a profile folder, or a fresh PostgreSQL database. */
interface Place {
  dataDir: string;
  url: string | null;
}

interface Backend {
  name: string;
  place(): Promise<Place>;
  open(place: Place, retention?: Retention): Promise<EventStore>;
  /** The child's extra arguments (after the data dir). */
  childArgs(place: Place): string[];
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    place: async () => ({ dataDir: tempDir(), url: null }),
    open: (p, retention) =>
      openEventStore({ dataDir: p.dataDir, events: new EventHub(), ...(retention ? { retention } : {}) }),
    childArgs: () => [],
  },
  {
    name: 'PostgreSQL',
    place: async () => ({ dataDir: tempDir(), url: await cluster!.database(`suite_${++dbCount}`) }),
    open: (p, retention) =>
      openPgEventStore(p.url!, {
        dataDir: p.dataDir,
        events: new EventHub(),
        ...(retention ? { retention } : {}),
      }),
    childArgs: (p) => [p.url!],
  },
];

describe.each(backends)('store suite on $name', (backend) => {
  it('counts totals per filter, pages newest first, and searches case-insensitively', async () => {
    const place = await backend.place();
    const store = await backend.open(place);
    try {
      const base = Date.parse('2026-01-01T00:00:00Z');
      const at = (k: number) => new Date(base + k * 60_000).toISOString();
      await store.append(notification({ at: at(0), transaction_id: 'AAA-1' }), { durable: true });
      await store.append(notification({ at: at(1), transaction_id: 'AAA-1', outcome: 'repeat' }));
      await store.append(notification({ at: at(2), transaction_id: null, outcome: 'rejected', status: 400 }));
      await store.append(callback({ at: at(3), failed_check: 'signature', status: 401 }));
      await store.append(
        callback({ at: at(4), path: '/key', failed_check: 'exp', warning: 'Sub Not Checked' }),
      );
      await store.append(callback({ at: at(5), path: '/external_id', obj: 'Bob@Example.com' }));
      await store.flush();
      expect((await store.query({})).total).toBe(6);
      expect((await store.query({ kind: 'notification' })).total).toBe(3);
      expect((await store.query({ kind: 'callback', failed: true })).total).toBe(2);
      expect((await store.query({ failed_check: 'signature' })).total).toBe(1);
      expect((await store.query({ transaction_id: 'aaa-1' })).total).toBe(2);
      expect((await store.query({ since: at(2), until: at(4) })).total).toBe(3);
      // Search: any letter case, any part of the stored text, LIKE's own characters taken literally.
      expect((await store.query({ text: 'bob@EXAMPLE' })).total).toBe(1);
      expect((await store.query({ text: 'not checked' })).total).toBe(1);
      expect((await store.query({ text: 'aaa' })).total).toBe(2);
      expect((await store.query({ text: 'a%a' })).total).toBe(0);
      expect((await store.query({ text: 'nothing-like-this' })).total).toBe(0);
      const p1 = await store.query({ limit: 4 });
      expect(p1.events.map((e) => e.at)).toEqual([5, 4, 3, 2].map(at));
      expect(p1.total).toBe(6);
      const p2 = await store.query({ limit: 4, before: p1.events[3]!.id });
      expect(p2.events.map((e) => e.at)).toEqual([1, 0].map(at));
      const stats = await store.stats({ query: { kind: 'notification' }, by: 'outcome' });
      expect(stats.total).toBe(3);
      expect(stats.groups).toEqual(
        expect.arrayContaining([
          { value: 'accepted', count: 1 },
          { value: 'repeat', count: 1 },
          { value: 'rejected', count: 1 },
        ]),
      );
      const scanned: string[] = [];
      for await (const e of store.scan({ kind: 'callback', last: 2 })) scanned.push(e.at);
      expect(scanned).toEqual([at(4), at(5)]);
      await expect(store.get('e999999999999')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(store.query({ before: 'nope' })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    } finally {
      await store.close();
    }
  });

  it('filters callbacks by the environment that published their kid, with the other filters, across a reopen', async () => {
    const place = await backend.place();
    let store = await backend.open(place);
    const env = (id: string | null, name: string) => ({ environment: { id, name } });
    try {
      await store.append(callback(env('sandbox', 'Sandbox')));
      await store.append(callback({ ...env('env-real', 'Bank staging'), failed_check: 'exp', status: 401 }));
      // A signature failure is stored compact: it still names its environment.
      await store.append(
        callback({ ...env('env-real', 'Bank staging'), failed_check: 'signature', status: 401 }),
      );
      // A --service-jwks-url no environment has: a name, no id.
      await store.append(callback(env(null, '--service-jwks-url')));
      await store.append(callback({ failed_check: 'kid', status: 401 }));
      // Only a callback's own environment counts: a notification carrying one is not filtered in.
      await store.append(notification(env('env-real', 'Bank staging')));
      await store.flush();
      const ids = async (q: Parameters<EventStore['query']>[0]) =>
        (await store.query(q)).events.map((e) => e.failed_check ?? 'passed').sort();
      expect(await ids({ environment: 'env-real' })).toEqual(['exp', 'signature']);
      expect(await ids({ kind: 'callback', environment: 'sandbox' })).toEqual(['passed']);
      expect(await ids({ environment: 'env-real', failed_check: 'exp' })).toEqual(['exp']);
      expect((await store.query({ environment: 'env-real', text: 'signature' })).total).toBe(1);
      expect((await store.query({ environment: 'nobody' })).total).toBe(0);
      expect((await store.stats({ query: { environment: 'env-real' }, by: 'failed_check' })).total).toBe(2);
      const stored = await store.get(
        (await store.query({ environment: 'env-real', failed_check: 'signature' })).events[0]!.id,
      );
      expect(stored.environment).toEqual({ id: 'env-real', name: 'Bank staging' });
      // The scan `events --environment` reads.
      const scanned: (string | null)[] = [];
      for await (const e of store.scan({ environment: 'env-real', last: 5 })) scanned.push(e.failed_check);
      expect(scanned).toEqual(['exp', 'signature']);
      await store.close();
      store = await backend.open(place);
      expect((await store.query({ environment: 'env-real' })).total).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('recognises a repeated transaction_id in any letter case across restarts', async () => {
    const place = await backend.place();
    let store = await backend.open(place);
    const first = await store.append(notification({ transaction_id: 'C0FFEE-Tx' }), {
      durable: true,
      repeatCheck: true,
    });
    const again = await store.append(notification({ transaction_id: 'c0ffee-tx' }), {
      durable: true,
      repeatCheck: true,
    });
    expect([first.outcome, again.outcome]).toEqual(['accepted', 'repeat']);
    await store.close();
    store = await backend.open(place);
    try {
      const later = await store.append(notification({ transaction_id: 'C0FFEE-TX' }), {
        durable: true,
        repeatCheck: true,
      });
      expect(later.outcome).toBe('repeat');
      expect((await store.get(later.id)).outcome).toBe('repeat');
      const all = await store.query({ transaction_id: 'c0ffee-tx' });
      expect(all.total).toBe(3);
      expect(all.events.filter((e) => e.outcome === 'accepted')).toHaveLength(1);
      // Five copies at once: one accepted at most, all stored.
      const burst = await Promise.all(
        Array.from({ length: 5 }, () =>
          store.append(notification({ transaction_id: 'BURST-1' }), { durable: true, repeatCheck: true }),
        ),
      );
      expect(burst.filter((s) => s.outcome === 'accepted')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('keeps each class to its own cap and never trims an acknowledged notification for another class', async () => {
    const place = await backend.place();
    const store = await backend.open(place, { callback: 5 });
    try {
      for (let i = 0; i < 3; i++)
        await store.append(notification({ transaction_id: `keep-${i}` }), { durable: true });
      for (let i = 0; i < 12; i++)
        await store.append(callback({ obj: `cust-${i}` }), { durable: i % 4 === 0 });
      await store.flush();
      const cbs = await store.query({ kind: 'callback' });
      expect(cbs.total).toBe(5);
      expect(cbs.events.map((e) => e.obj)).toEqual(['cust-11', 'cust-10', 'cust-9', 'cust-8', 'cust-7']);
      expect((await store.query({ kind: 'notification' })).total).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('loses no acknowledged append when the writer process is killed with -9, twice', async () => {
    const place = await backend.place();
    const all = new Map<string, string>();
    for (const round of [1, 2]) {
      const acked = new Map<string, string>();
      await runUntilKilled(child, [place.dataDir, ...backend.childArgs(place)], (line) => {
        const [id, tx] = line.split(' ');
        if (id && tx) acked.set(id, tx);
        return acked.size >= 400 * round;
      });
      for (const [id, tx] of acked) all.set(id, tx);
      const store = await backend.open(place);
      try {
        for (const [id, tx] of all) expect((await store.get(id)).transaction_id).toBe(tx);
        expect((await store.query({ kind: 'notification', limit: 1 })).total).toBeGreaterThanOrEqual(
          all.size,
        );
      } finally {
        await store.close();
      }
    }
  }, 120_000);
});

describe('two hubs on one PostgreSQL database', () => {
  it('accept each transaction_id once when both take it at the same moment, whatever characters it holds', async () => {
    const url = await cluster!.database(`suite_${++dbCount}`);
    const open = (dir: string) => openPgEventStore(url, { dataDir: dir, events: new EventHub() });
    const a = await open(tempDir());
    const b = await open(tempDir());
    try {
      // Quotes, backslashes and SQL go into the repeat check as quoted literals: none may escape.
      const hostile = [
        `O'Brien\\`,
        `x'); DROP TABLE events; --`,
        `e'\\'' OR '1'='1`,
        'Ünïcødé-☃',
        '$1 $$ $tag$',
      ];
      const txs = [...hostile, ...Array.from({ length: 60 }, (_, i) => `tx-${i}`)];
      const take = (store: EventStore, tx: string, upper: boolean) =>
        store.append(notification({ transaction_id: upper ? tx.toUpperCase() : tx }), {
          durable: true,
          repeatCheck: true,
        });
      // Each transaction_id twice on each hub (once in capitals), all at once.
      const results = await Promise.all(
        txs.flatMap((tx) => [take(a, tx, false), take(b, tx, false), take(a, tx, true), take(b, tx, true)]),
      );
      for (const [i, tx] of txs.entries()) {
        const outcomes = results.slice(i * 4, i * 4 + 4).map((s) => s.outcome);
        expect(
          outcomes.filter((o) => o === 'accepted'),
          tx,
        ).toHaveLength(1);
        expect(
          outcomes.filter((o) => o === 'repeat'),
          tx,
        ).toHaveLength(3);
      }
      // Stored as answered, on either hub, and the table is whole.
      for (const s of results) expect((await b.get(s.id)).outcome).toBe(s.outcome);
      expect((await a.query({ kind: 'notification', limit: 1 })).total).toBe(txs.length * 4);
      const again = await take(b, hostile[1]!, false);
      expect(again.outcome).toBe('repeat');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('store a NUL PostgreSQL text cannot hold without failing anyone else’s append in its batch', async () => {
    const url = await cluster!.database(`suite_${++dbCount}`);
    const store = await openPgEventStore(url, { dataDir: tempDir(), events: new EventHub() });
    try {
      const nul = 'nul\u0000tx';
      const take = (tx: string, path = '/notify') =>
        store.append(notification({ transaction_id: tx, path }), { durable: true, repeatCheck: true });
      const results = await Promise.all([
        take('before-1'),
        take(nul, '/notify/\u0000'),
        take('after-1'),
        take(nul.toUpperCase()),
      ]);
      expect(results.map((r) => r.outcome)).toEqual(['accepted', 'accepted', 'accepted', 'repeat']);
      const stored = await store.get(results[1]!.id);
      expect(stored.transaction_id).toBe(nul);
      expect((await store.query({ transaction_id: 'before-1' })).total).toBe(1);
      expect((await take(nul)).outcome).toBe('repeat');
    } finally {
      await store.close();
    }
  });
});
