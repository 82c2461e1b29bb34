import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, post, startBank } from '../bank/helpers';

afterAll(cleanup);

const prefix = '/api/svc/notify';

function dbBytes(dir: string): number {
  let n = 0;
  for (const f of ['console.db', 'console.db-wal']) {
    try {
      n += fs.statSync(path.join(dir, f)).size;
    } catch {
      // no WAL yet
    }
  }
  return n;
}

/** Runs `count` requests, `width` at a time (bounded in count; each waits for its answer). */
async function run(count: number, width: number, one: (k: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

describe('event store: a flood of refused requests (DESIGN.md "Bank endpoints")', () => {
  it('does not remove a single acknowledged notification, and the database grows by a bounded amount', async () => {
    const REFUSED_CAP = 300;
    const fx = await startBank({ retention: { refused: REFUSED_CAP } });
    const acked: string[] = [];
    await run(200, 16, async () => {
      const id = randomUUID();
      const r = await post(`${fx.url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id }));
      if (r.status === 200) acked.push(id);
    });
    expect(acked).toHaveLength(200);
    await fx.store.flush();
    const start = dbBytes(fx.dir);

    const big = 'h'.repeat(12 * 1024);
    const FLOOD = 1600;
    await run(FLOOD, 24, async (k) => {
      const headers: Record<string, string> =
        k % 4 === 0
          ? { 'x-pad': big } // no X-Session-ID: `present`
          : k % 4 === 1
            ? { 'x-pad': big, 'X-Session-ID': 'garbage' } // `structure`
            : k % 4 === 2
              ? { 'x-pad': big, 'x-more': big } // over 16 KiB: 431 before routing
              : { 'x-pad': big }; // an unknown route: 404
      const url = k % 4 === 3 ? `${fx.url}/nope/${k}` : `${fx.url}/user_auth`;
      const res = await fetch(url, { headers }).catch(() => null);
      await res?.text();
    });
    // Wait until the bank's non-durable records are committed.
    for (let i = 0; i < 200; i++) {
      await fx.store.flush();
      if ((await fx.store.query({ kind: 'callback', limit: 1 })).total >= REFUSED_CAP) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 200));
    await fx.store.flush();

    const n = await fx.store.query({ kind: 'notification', limit: 1000 });
    expect(n.total).toBe(200);
    expect(new Set(n.events.map((e) => e.transaction_id))).toEqual(new Set(acked));
    for (const id of acked) expect(fx.store.hasTransaction(id.toUpperCase())).toBe(true);
    // The refused ones: compact, and no more than their cap.
    const refused = await fx.store.query({ kind: 'callback', limit: 10 });
    expect(refused.total).toBeLessThanOrEqual(REFUSED_CAP);
    expect(refused.total).toBeGreaterThan(0);
    const one = await fx.store.get(refused.events[0]!.id);
    expect(one.request).toBeNull();
    expect(JSON.stringify(one)).not.toContain(big.slice(0, 100));
    // 1,600 requests with 12-24 KiB of headers each (over 20 MiB) grew the database by what
    // 300 compact records and the WAL's pages take, far under a MiB per 300 records.
    expect(dbBytes(fx.dir) - start).toBeLessThan(4 * 1024 * 1024);
  }, 120_000);
});
