import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore, type NewEvent } from '../../../electron/core/store';
import { openLegacySegmentLog } from './fixtures/legacy-segment-log';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/** One of every shape the old engine stored: every field set somewhere. */
function history(k: number): NewEvent {
  switch (k % 6) {
    case 0:
      return notification({ transaction_id: `Tx-${k}`, outcome: k % 12 ? 'accepted' : 'repeat' });
    case 1:
      return callback({
        obj: `cust-${k}`,
        status: 401,
        failed_check: 'signature',
        warning: 'sub not checked',
        checks: [{ id: 'signature', title: 'Signature', status: 'failed', detail: `bad signature ${k}` }],
        jwks: {
          url: 'http://127.0.0.1:1/jwks',
          kids: ['a', 'b'],
          fetched_at: null,
          stale: true,
          error: 'down',
        },
        forward: { url: 'http://127.0.0.1:2', status: 200, duration_ms: 3.25, error: null, verdicts: [] },
      });
    case 2:
      return {
        ...notification(),
        kind: 'exchange',
        path: '/api/v1/x',
        outcome: null,
        data: { n: k, nested: [1, 'two'] },
      };
    case 3:
      return { ...notification(), kind: 'trace', outcome: null, data: { step: k } };
    case 4:
      // Refused before any check: the new store would compact it; the migration keeps it whole.
      return callback({
        failed_check: 'present',
        token: null,
        status: 401,
        request: { headers: { a: 'b' }, body: 'x'.repeat(k) },
      });
    default:
      return notification({ at: '2026-01-01T01:00:00+01:00', outcome: 'rejected', status: 400 });
  }
}

describe('event store: migration of a segment-log profile (issue 5 format)', () => {
  it('keeps every event and field, reports progress, keeps the old files aside, and runs once', async () => {
    const dataDir = tempDir();
    const legacy = await openLegacySegmentLog({ dataDir, events: new EventHub(), segmentBytes: 8 * 1024 });
    const N = 600;
    for (let k = 0; k < N; k += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => legacy.append(history(k + j), { durable: true })),
      );
    const before = new Map<string, unknown>();
    for await (const e of legacy.scan()) before.set(e.id, e);
    await legacy.close();
    expect(before.size).toBe(N);
    const segments = fs.readdirSync(path.join(dataDir, 'events'));
    expect(segments.length).toBeGreaterThan(3);
    // A torn tail from a crash of the old engine: never acknowledged, left out.
    fs.appendFileSync(
      path.join(dataDir, 'events', segments.sort().at(-1)!),
      '{"id":"e000000000999","at":"20',
    );

    const progress: number[] = [];
    const logs: string[] = [];
    const store = await openEventStore({
      dataDir,
      events: new EventHub(),
      onMigrationProgress: (p) => progress.push(p.bytesDone / p.bytesTotal),
      log: (l) => logs.push(l),
    });
    try {
      expect((await store.query({ limit: 1 })).total).toBe(N);
      for (const [id, e] of before) expect(await store.get(id)).toEqual(e);
      const scanned: unknown[] = [];
      for await (const e of store.scan()) scanned.push(e);
      expect(scanned).toEqual([...before.values()]);
      expect(store.hasTransaction('tx-6')).toBe(true);
      expect(progress.at(-1)).toBe(1);
      expect(progress.length).toBeGreaterThan(1);
      expect(logs.join('\n')).toMatch(/migrated 600 event\(s\)/);
      // The old files are kept, renamed aside, byte for byte.
      expect(fs.existsSync(path.join(dataDir, 'events'))).toBe(false);
      expect(fs.readdirSync(path.join(dataDir, 'events.migrated')).sort()).toEqual(segments.sort());
      const next = await store.append(notification(), { durable: true });
      expect(next.id).toBe('e000000000601');
    } finally {
      await store.close();
    }
    // Once: a second open migrates nothing more.
    const again = await openEventStore({ dataDir, events: new EventHub(), log: () => undefined });
    expect((await again.query({ limit: 1 })).total).toBe(N + 1);
    await again.close();
  });

  it('a read-only opener (events beside nothing) migrates an old profile before reading it', async () => {
    const dataDir = tempDir();
    const legacy = await openLegacySegmentLog({ dataDir, events: new EventHub() });
    await legacy.append(history(0), { durable: true });
    await legacy.close();
    const reader = await openEventStore({
      dataDir,
      events: new EventHub(),
      readOnly: true,
      log: () => undefined,
    });
    expect((await reader.query({})).total).toBe(1);
    await reader.close();
    expect(fs.existsSync(path.join(dataDir, 'events.migrated'))).toBe(true);
  });
});
