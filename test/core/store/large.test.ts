import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore, type NewEvent } from '../../../electron/core/store';
import { formatEventId } from '../../../electron/core/store';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/**
 * A big store, built fast by writing segment files the way the store writes them (building
 * it through append() is measured in measure.ts, with a million events). 200k keeps this test
 * to a few seconds on two cores; nothing here asserts timings.
 */
const N = 200_000;
const PER_SEGMENT = 50_000;

function record(seq: number) {
  const base = Date.parse('2026-01-01T00:00:00Z');
  const cb = seq % 3 === 0;
  return {
    id: formatEventId(seq),
    at: new Date(base + seq * 1000).toISOString(),
    kind: cb ? 'callback' : 'notification',
    path: cb ? (seq % 2 ? '/user_auth' : '/key') : '/notify',
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

describe('event store: a large store', () => {
  it(`opens ${N.toLocaleString('en')} events and answers queries with exact totals`, async () => {
    const dataDir = tempDir();
    const dir = path.join(dataDir, 'events');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (let s = 0; s < N / PER_SEGMENT; s++) {
      const lines: string[] = [];
      for (let k = 1; k <= PER_SEGMENT; k++) lines.push(JSON.stringify(record(s * PER_SEGMENT + k)));
      fs.writeFileSync(
        path.join(dir, `seg-${String(s + 1).padStart(6, '0')}.jsonl`),
        `${lines.join('\n')}\n`,
        {
          mode: 0o600,
        },
      );
    }
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
      expect((await store.query({ text: 'CUST-42' })).total).toBe(
        expected((r) => (r.obj ?? '').includes('cust-42')),
      );
      expect((await store.query({ transaction_id: 'tx-4243' })).total).toBe(
        expected((r) => r.transaction_id === 'tx-4243'),
      );
      expect(store.hasTransaction('tx-4243')).toBe(true);
      const page = await store.query({ path: '/key', before: formatEventId(100_000), limit: 50 });
      expect(page.total).toBe(expected((r) => r.path === '/key'));
      expect(page.events).toHaveLength(50);
      expect(page.events.every((e) => e.id < formatEventId(100_000) && e.path === '/key')).toBe(true);
      const d = await store.get(formatEventId(123_456));
      expect(d).toEqual(record(123_456));
      const next = await store.append(
        { ...(record(1) as NewEvent), at: new Date().toISOString() },
        { durable: true },
      );
      expect(next.id).toBe(formatEventId(N + 1));
    } finally {
      await store.close();
    }
  });
});
