import fs from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { runBuiltCli } from '../../cli/helpers';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const N = 3000;

/** A profile of N events whose WAL is checkpointed into the main file, then one leaf page of the events table overwritten. */
async function damagedProfile(): Promise<{ dir: string; file: string; ids: string[] }> {
  const dir = tempDir();
  const store = await openEventStore({ dataDir: dir, events: new EventHub() });
  const ids: string[] = [];
  for (let k = 0; k < N; k += 100) {
    const batch = await Promise.all(
      Array.from({ length: 100 }, (_, j) =>
        (k + j) % 2
          ? store.append(notification({ transaction_id: `tx-${k + j}` }), { durable: true })
          : store.append(callback({ obj: `o-${k + j}` })),
      ),
    );
    ids.push(...batch.map((s) => s.id));
  }
  await store.close();
  const file = path.join(dir, 'console.db');
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const leaves = db
    .prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno")
    .all() as { pageno: number }[];
  db.close();
  expect(leaves.length).toBeGreaterThan(10);
  const page = leaves[Math.floor(leaves.length / 2)]!.pageno;
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
  fs.closeSync(fd);
  return { dir, file, ids };
}

describe('event store: a damaged database', () => {
  it('opens with a report naming the file, serves what it can read, and `store recover` keeps every readable event and the damaged file', async () => {
    const { dir, file, ids } = await damagedProfile();
    const logs: string[] = [];
    const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: (l) => logs.push(l) });
    const readable: string[] = [];
    try {
      expect((await store.integrity()).length).toBeGreaterThan(0);
      expect(store.health()).toMatchObject({ state: 'damaged', file });
      expect(logs.join('\n')).toContain(file);
      // The report says what to do about it.
      expect(logs.join('\n')).toContain('dets-console store recover');
      for await (const e of store.scan()) readable.push(e.id);
      // One page lost: most events are still served, in order.
      expect(readable.length).toBeGreaterThan(N * 0.8);
      expect(readable.length).toBeLessThan(N);
      expect([...readable].sort()).toEqual(readable);
      expect(readable.every((id) => ids.includes(id))).toBe(true);
      // A new notification can still be stored (its page is not the damaged one).
      await store.append(notification({ transaction_id: 'after-damage' }), { durable: true });
      readable.push((await store.query({ transaction_id: 'after-damage' })).events[0]!.id);
    } finally {
      await store.close();
    }

    // `events` lists what it can read and names the damaged file on stderr.
    const listed = await runBuiltCli(['events', '--data-dir', dir, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(readable.length);
    expect(listed.stderr).toContain(file);
    expect(listed.stderr).toContain('dets-console store recover');

    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Recovered ${readable.length} events`));
    expect(r.stderr).toMatch(/damaged/);
    const kept = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('console.db.damaged-') && !/-(wal|shm)$/.test(f));
    expect(kept).toHaveLength(1);
    // The damaged file is kept, damaged page included (never deleted, never rewritten).
    expect(fs.readFileSync(path.join(dir, kept[0]!)).includes(Buffer.alloc(4096, 0xa5))).toBe(true);

    const fresh = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
    try {
      expect(await fresh.integrity()).toEqual([]);
      expect(fresh.health().state).toBe('ok');
      const after: string[] = [];
      for await (const e of fresh.scan()) after.push(e.id);
      expect(after).toEqual(readable);
      expect(fresh.hasTransaction('AFTER-DAMAGE')).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it('`store recover` on a profile without a database says so', async () => {
    const r = await runBuiltCli(['store', 'recover', '--data-dir', tempDir()]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no database at .*console\.db/);
  });
});
