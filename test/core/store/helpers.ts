import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore, type NewEvent } from '../../../electron/core/store';

const made: string[] = [];

/** A temp dir, removed by removeTempDirs() (call it in afterAll). */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dets-store-'));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

export function notification(over: Partial<NewEvent> = {}): NewEvent {
  return {
    at: new Date().toISOString(),
    kind: 'notification',
    path: '/notify',
    method: 'POST',
    status: 200,
    outcome: 'accepted',
    transaction_id: null,
    failed_check: null,
    obj: null,
    sub: null,
    duration_ms: 1.5,
    warning: null,
    remote: '127.0.0.1',
    request: { method: 'POST', url: '/notify', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: { status: 200, headers: {}, body: null },
    checks: null,
    token: null,
    jwks: null,
    forward: null,
    ...over,
  };
}

export function callback(over: Partial<NewEvent> = {}): NewEvent {
  return notification({
    kind: 'callback',
    path: '/user_auth',
    outcome: null,
    status: 200,
    obj: 'customer-1',
    sub: 'sub-1',
    // A decoded token: the callback got past `present` and `structure` (records.ts).
    token: { header: { alg: 'RS256', kid: 'kid-1' }, payload: { obj: 'customer-1', sub: 'sub-1' } },
    ...over,
  });
}

/** The leaf pages of `table` after the WAL is checkpointed into the main file. */
export function leavesOf(file: string, table: string): number[] {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const leaves = db
    .prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno")
    .all(table) as { pageno: number }[];
  db.close();
  return leaves.map((l) => l.pageno);
}

/** Overwrites page `page` (4 KB pages) with 0xa5 bytes, as a disk fault would. */
export function overwritePage(file: string, page: number): void {
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
  fs.closeSync(fd);
}

/**
 * Stores `events` notifications (transaction_ids `old-0`, `old-1`, …) in the profile `dir`, then
 * overwrites a leaf page of the events in the middle: a profile `store recover` has work on.
 */
export async function storeAndDamage(dir: string, events: number): Promise<void> {
  const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
  for (let k = 0; k < events; k += 500)
    await Promise.all(
      Array.from({ length: Math.min(500, events - k) }, (_, j) =>
        store.append(notification({ transaction_id: `old-${k + j}` }), { durable: true }),
      ),
    );
  await store.close();
  const file = path.join(dir, 'console.db');
  const leaves = leavesOf(file, 'events');
  overwritePage(file, leaves[Math.floor(leaves.length / 2)]!);
}
