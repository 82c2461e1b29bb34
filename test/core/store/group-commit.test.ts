/**
 * The store's one group-commit mechanism (group-commit.ts), used by the SQLite and PostgreSQL
 * event queues and the profile database's state writes: what queues during a commit goes in the
 * next one, an item the commit fails alone is refused alone, a commit failing as a whole refuses
 * the durable items and retries the others. And through the real profile database: concurrent
 * state writes share commits (savepoints), a bad one fails alone and loses nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { acquireProfileDb, metaStep, readMeta } from '../../../electron/core/store/profile-db';
import { GroupCommit } from '../../../electron/core/store/group-commit';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function queue(commit: (items: number[]) => Promise<(string | Error)[]>) {
  return new GroupCommit<number, string>({
    commit,
    failure: (why) => new ConsoleError('INTERNAL', `could not write: ${why}`),
    coalesceMs: 5,
    coalesceMax: 512,
  });
}

describe('GroupCommit', () => {
  it('takes what queued during a commit into the next one, in order', async () => {
    const batches: number[][] = [];
    const q = queue(async (items) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 20));
      return items.map((i) => `ok ${i}`);
    });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => q.add(i, true)));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => `ok ${i}`));
    // The first durable item goes alone; the 49 that queued meanwhile share the next commit.
    expect(batches).toEqual([[0], Array.from({ length: 49 }, (_, i) => i + 1)]);
  });

  it('refuses an item the commit failed alone, and only that one', async () => {
    const q = queue(async (items) => items.map((i) => (i === 3 ? new Error('constraint') : `ok ${i}`)));
    const settled = await Promise.allSettled([1, 2, 3, 4].map((i) => q.add(i, true)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toContain('constraint');
  });

  it('a failed commit refuses the durable items and retries the others until one succeeds', async () => {
    let fail = true;
    const seen: number[][] = [];
    const q = queue(async (items) => {
      seen.push(items);
      if (fail) throw new Error('disk full');
      return items.map((i) => `ok ${i}`);
    });
    const later = q.add(1, false);
    const now = q.add(2, true);
    await expect(now).rejects.toThrow('could not write: disk full');
    fail = false;
    // Retried about a second later (RETRY_MS), without anything new arriving.
    await expect(later).resolves.toBe('ok 1');
    expect(seen).toEqual([[1, 2], [1]]);
    q.close();
  });
});

describe('profile database state writes', () => {
  it('a bad write among 200 concurrent ones fails alone, naming the file; the others are stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dets-group-commit-'));
    dirs.push(dir);
    const pdb = acquireProfileDb(dir);
    try {
      const writes = Array.from({ length: 200 }, (_, i) =>
        i === 77
          ? pdb.write([metaStep('group-77', 'x'), ['INSERT INTO no_such_table (x) VALUES (?)', [1]]])
          : pdb.write([metaStep(`group-${i}`, String(i))]),
      );
      const settled = await Promise.allSettled(writes);
      const refused = settled.flatMap((s, i) => (s.status === 'rejected' ? [i] : []));
      expect(refused).toEqual([77]);
      const why = (settled[77] as PromiseRejectedResult).reason as ConsoleError;
      expect(why.code).toBe('INTERNAL');
      expect(why.message).toContain(pdb.file);
      expect(why.message).toContain('no_such_table');
      for (let i = 0; i < 200; i++) expect(readMeta(pdb.db, `group-${i}`)).toBe(i === 77 ? null : String(i));
    } finally {
      await pdb.release();
    }
  });
});
