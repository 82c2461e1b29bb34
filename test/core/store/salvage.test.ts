/**
 * Recovery that reads everything readable (issue 24 item 6): one corrupt row in a chunk, a
 * flipped header, a file cut in half; each through the built `store recover`, counting the
 * events and table rows that came back.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { jsonLines, runBuiltCli } from '../../cli/helpers';
import { leavesOf, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/** A profile of `n` notifications and a few rows in two other tables, checkpointed into the main file. */
async function profile(n: number): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
  for (let k = 0; k < n; k += 250)
    await Promise.all(
      Array.from({ length: Math.min(250, n - k) }, (_, j) =>
        store.append(notification({ transaction_id: `tx-${k + j}` }), { durable: true }),
      ),
    );
  await store.close();
  const file = path.join(dir, 'console.db');
  const db = new Database(file);
  const put = db.prepare('INSERT INTO sandbox_keys (kid, record) VALUES (?, ?)');
  for (let i = 0; i < 3; i++) put.run(`kid-${i}`, JSON.stringify({ kid: `kid-${i}` }));
  db.prepare('INSERT INTO walkthrough_progress (environment_id, record) VALUES (?, ?)').run('sandbox', '{}');
  db.close();
  leavesOf(file, 'events'); // checkpoints the WAL: the damage below is to the file itself
  return { dir, file };
}

/** Writes 0xff over the record header of the `index`th cell of leaf page `page`: that row alone is unreadable. */
function corruptRow(file: string, page: number, index: number): void {
  const fd = fs.openSync(file, 'r+');
  const b = Buffer.alloc(4096);
  fs.readSync(fd, b, 0, 4096, (page - 1) * 4096);
  let at = b.readUInt16BE(8 + 2 * index);
  for (let k = 0; k < 2; k++) while (b[at++]! & 0x80); // payload size, rowid
  b.fill(0xff, at, at + 9);
  fs.writeSync(fd, b, 0, 4096, (page - 1) * 4096);
  fs.closeSync(fd);
}

async function recoverAndList(dir: string): Promise<{ stdout: string; stderr: string; ids: string[] }> {
  const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
  expect(r.code, r.stderr).toBe(0);
  const listed = await runBuiltCli(['events', '--data-dir', dir, '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return { stdout: r.stdout, stderr: r.stderr, ids: jsonLines(listed.stdout).map((e) => String(e.id)) };
}

function rowsOf(file: string, table: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

describe('store recover reads everything readable', () => {
  it('one corrupt row in a chunk costs that row alone', async () => {
    const { dir, file } = await profile(1500);
    const leaves = leavesOf(file, 'events');
    corruptRow(file, leaves[1]!, 0);
    // `events` reads row by row past it too.
    const before = await runBuiltCli(['events', '--data-dir', dir, '--json']);
    expect(jsonLines(before.stdout)).toHaveLength(1499);
    const { stdout, ids } = await recoverAndList(dir);
    expect(ids).toHaveLength(1499);
    expect(new Set(ids).size).toBe(1499);
    expect(stdout).toMatch(/^Recovered 1499 events and \d+ rows/);
    expect(rowsOf(file, 'sandbox_keys')).toBe(3);
  });

  it('a flipped 16-byte header: every event and every table row comes back', async () => {
    const { dir, file } = await profile(1000);
    const fd = fs.openSync(file, 'r+');
    const h = Buffer.alloc(16);
    fs.readSync(fd, h, 0, 16, 0);
    for (let i = 0; i < 16; i++) h[i] = h[i]! ^ 0xff;
    fs.writeSync(fd, h, 0, 16, 0);
    fs.closeSync(fd);
    const { stdout, stderr, ids } = await recoverAndList(dir);
    expect(stderr).toContain('the header does not begin "SQLite format 3"');
    expect(stdout).toMatch(/^Recovered 1000 events and \d+ rows/);
    expect(ids).toHaveLength(1000);
    expect(rowsOf(file, 'sandbox_keys')).toBe(3);
    expect(rowsOf(file, 'walkthrough_progress')).toBe(1);
  });

  it('a file cut in half: the events of its first half and every other table come back', async () => {
    const n = 4000;
    const { dir, file } = await profile(n);
    const size = fs.statSync(file).size;
    fs.truncateSync(file, Math.floor(size / 2 / 4096) * 4096);
    const { stdout, stderr, ids } = await recoverAndList(dir);
    expect(stderr).toContain('the file is cut short');
    const recovered = Number(/^Recovered (\d+) events/.exec(stdout)![1]);
    expect(ids).toHaveLength(recovered);
    // Rows are about evenly spread: a third at least of them was in the first half (the rest of
    // the file holds the indexes and the search text).
    expect(recovered).toBeGreaterThan(n / 3);
    expect(recovered).toBeLessThan(n);
    expect(rowsOf(file, 'sandbox_keys')).toBe(3);
    expect(rowsOf(file, 'walkthrough_progress')).toBe(1);
  });
});
