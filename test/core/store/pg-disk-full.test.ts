/**
 * The team hub's PostgreSQL on a full disk (issue 30 item 4: "an acknowledged notification is
 * never lost"; DESIGN.md "Storage": a notification's 200 only after its commit). The cluster
 * lives on a 64 MiB tmpfs this test mounts (root is available in CI) and unmounts in afterAll,
 * whatever happened; the server is stopped by its PID. A filled disk makes PostgreSQL refuse to
 * extend the events table: each durable append must then fail with an error naming the cause
 * (the bank answers 500 and the service retries), the store's health must say `failing` with
 * the reason, nothing acknowledged before may go, and writing must resume by itself once space
 * is freed.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openPgEventStore } from '../../../electron/core/store';
import { fillDisk, mountTmpfs, unmountTmpfs } from '../../support/full-disk';
import { startPostgres, type TestPostgres } from '../../support/postgres';
import { notification, removeTempDirs, tempDir } from './helpers';

let mountPoint = '';
let cluster: TestPostgres | null = null;

beforeAll(async () => {
  mountPoint = mountTmpfs('64m', 'dets-pgfull-');
  // Small WAL segments and buffers: the cluster fits the tmpfs with room to fill.
  cluster = await startPostgres({
    parent: mountPoint,
    initdb: ['--wal-segsize=1'],
    settings: ['shared_buffers=8MB'],
  });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  if (mountPoint) unmountTmpfs(mountPoint);
  removeTempDirs();
});

const take = (body = '{}') =>
  notification({
    transaction_id: randomUUID(),
    request: { method: 'POST', url: '/notify', headers: { 'content-type': 'application/json' }, body },
  });

describe('the PostgreSQL store on a full disk', () => {
  it('refuses durable appends with the cause while full, loses nothing acknowledged, and resumes when space is freed', async () => {
    const url = await cluster!.database('diskfull');
    const store = await openPgEventStore(url, { dataDir: tempDir(), events: new EventHub() });
    const filler = path.join(mountPoint, 'filler');
    try {
      const acked = new Map<string, string>();
      const append = async (body?: string) => {
        const event = take(body);
        const s = await store.append(event, { durable: true, repeatCheck: true });
        acked.set(s.id, event.transaction_id!);
      };
      for (let i = 0; i < 40; i++) await append();
      fillDisk(filler);

      // Bounded: at most 2,000 appends of 2 kB, or 30 s, until five have failed.
      const failures: string[] = [];
      const deadline = Date.now() + 30_000;
      for (let i = 0; i < 2000 && Date.now() < deadline && failures.length < 5; i++) {
        await append('"' + 'x'.repeat(2000) + '"').catch((err: unknown) => failures.push(String(err)));
      }
      expect(failures).toHaveLength(5);
      for (const f of failures) expect(f).toMatch(/could not write to PostgreSQL: .*No space left on device/);
      const health = store.health();
      expect(health.state).toBe('failing');
      expect(health.detail).toMatch(/No space left on device/);

      fs.rmSync(filler);
      // Writing resumes by itself (no restart of the store), and the health says so.
      await append();
      expect(store.health().state).toBe('ok');
      for (const [id, tx] of acked) expect((await store.get(id)).transaction_id).toBe(tx);
      expect((await store.query({ kind: 'notification', limit: 1 })).total).toBe(acked.size);
    } finally {
      fs.rmSync(filler, { force: true });
      await store.close();
    }
  }, 90_000);
});
