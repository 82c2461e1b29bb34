/**
 * The built writer worker file itself (dist/workers/writer-worker.mjs, built from
 * electron/core/store/writer-worker.ts by scripts/build.mjs), started directly with
 * `new Worker(url)` as writer.ts starts it, nothing evaluated: its three modes answer as the
 * protocol (writer-protocol.ts) says, and what it writes is what the main thread reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { BUSY_TIMEOUT_MS, libsqlPath, openDatabaseFile } from '../../../electron/core/store/db';
import { PENDING_ID, toRow } from '../../../electron/core/store/records';
import { DEFAULT_RETENTION } from '../../../electron/core/store/sqlite-store';
import type { WriterReply, Request, WorkerData } from '../../../electron/core/store/writer-protocol';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const built = fileURLToPath(new URL('../../../dist/workers/writer-worker.mjs', import.meta.url));

/** A fresh, migrated database file (the main thread migrates; the worker never does). */
function freshDb(): string {
  const file = path.join(tempDir(), 'console.db');
  openDatabaseFile(file).close();
  return file;
}

function start(data: Omit<WorkerData, 'libsql' | 'busyTimeoutMs' | 'caps'>): Worker {
  const workerData: WorkerData = {
    libsql: libsqlPath(),
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    caps: { ...DEFAULT_RETENTION, callback: 2 },
    ...data,
  };
  return new Worker(pathToFileURL(built), {
    workerData,
    ...(data.port ? { transferList: [data.port] } : {}),
  });
}

/** Sends requests one at a time; the replies, each matched by its id. */
async function ask(worker: Worker, requests: Request[]): Promise<WriterReply[]> {
  const replies: WriterReply[] = [];
  for (const [i, req] of requests.entries()) {
    const reply = new Promise<WriterReply & { id: number }>((resolve) => worker.once('message', resolve));
    worker.postMessage({ id: i + 1, ...req });
    const r = await reply;
    expect(r.id).toBe(i + 1);
    replies.push(r);
  }
  return replies;
}

const rowOf = (e: ReturnType<typeof notification>) =>
  toRow({ id: PENDING_ID, ...e } as EventDetail, 0, 64 * 1024).row;

describe('the built writer worker, started with new Worker(url)', () => {
  it('is a file of the build, not source text', () => {
    expect(fs.existsSync(built)).toBe(true);
    expect(fs.readFileSync(built, 'utf8')).not.toMatch(/\beval\b|new Function/);
  });

  it('write mode: commits rows with ids, repeats, retention and meta in one transaction, runs exec steps, closes', async () => {
    const file = freshDb();
    const worker = start({ file, mode: 'write', threadName: 'dets-writer' });
    try {
      const [first, second, state, closed] = await ask(worker, [
        {
          type: 'commit',
          rows: [
            rowOf(notification({ transaction_id: 'TX-1' })),
            rowOf(notification({ transaction_id: 'tx-1' })),
          ],
          durable: true,
          check: [0, 1],
          meta: [['marker', 'one']],
        },
        {
          type: 'commit',
          rows: [1, 2, 3].map((i) => rowOf(callback({ path: `/user_auth?i=${i}` }))),
          durable: false,
        },
        { type: 'exec', steps: [['INSERT INTO meta (key, value) VALUES (?, ?)', ['from-exec', 'yes']]] },
        { type: 'close' },
      ]);
      expect(first).toMatchObject({ ok: true, firstSeq: 1, repeats: [1] });
      expect(second).toMatchObject({ ok: true, firstSeq: 3 });
      expect(state).toMatchObject({ ok: true });
      expect(closed).toMatchObject({ ok: true });
    } finally {
      await worker.terminate();
    }
    const db = new Database(file, { readonly: true });
    try {
      const rows = db.prepare('SELECT seq, kind, outcome, record FROM events ORDER BY seq').all() as {
        seq: number;
        kind: string;
        outcome: string | null;
        record: string;
      }[];
      // The callback class's cap (2) trimmed the oldest callback; ids never repeat.
      expect(rows.map((r) => [r.seq, r.kind, r.outcome])).toEqual([
        [1, 'notification', 'accepted'],
        [2, 'notification', 'repeat'],
        [4, 'callback', null],
        [5, 'callback', null],
      ]);
      // The record says what the columns say: its id, and the repeat.
      expect(JSON.parse(rows[1]!.record)).toMatchObject({ id: 'e000000000002', outcome: 'repeat' });
      const meta = Object.fromEntries(
        (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((m) => [
          m.key,
          m.value,
        ]),
      );
      expect(meta).toMatchObject({ marker: 'one', 'from-exec': 'yes', high_seq: '5' });
      expect(
        db.prepare("SELECT count, trimmed FROM class_stats WHERE class = 'callback'").get(),
      ).toMatchObject({
        count: 2,
        trimmed: 1,
      });
    } finally {
      db.close();
    }
  });

  it('write mode: a failing request is a reply with SQLite’s code, and the next request is served', async () => {
    const file = freshDb();
    const worker = start({ file, mode: 'write', threadName: 'dets-writer' });
    try {
      const [bad, good] = await ask(worker, [
        { type: 'exec', steps: [['INSERT INTO no_such_table (x) VALUES (?)', [1]]] },
        { type: 'commit', rows: [rowOf(notification())], durable: true },
      ]);
      expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/no_such_table/) });
      expect(typeof bad!.code).toBe('string');
      expect(good).toMatchObject({ ok: true, firstSeq: 1 });
    } finally {
      await worker.terminate();
    }
  });

  it('check mode: quick_check of a sound file, and of a file that is not a database', async () => {
    const once = (w: Worker) =>
      new Promise<WriterReply>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
    const sound = start({ file: freshDb(), mode: 'check', threadName: 'dets-check' });
    expect(await once(sound)).toEqual({ ok: true, problems: ['ok'] });
    await sound.terminate();
    const junk = path.join(tempDir(), 'junk.db');
    fs.writeFileSync(junk, Buffer.alloc(8192, 0x5a));
    const damaged = start({ file: junk, mode: 'check', threadName: 'dets-check' });
    expect(await once(damaged)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/not a database/i),
    });
    await damaged.terminate();
  });

  it('checkpoint mode: answers "done" to each request on its port and ends when told to close', async () => {
    const file = freshDb();
    const channel = new MessageChannel();
    const checkpointer = start({
      file,
      mode: 'checkpoint',
      port: channel.port2,
      threadName: 'dets-checkpoint',
    });
    const ended = new Promise<number>((resolve) => checkpointer.once('exit', resolve));
    const answer = new Promise((resolve) => channel.port1.once('message', resolve));
    channel.port1.postMessage('checkpoint');
    expect(await answer).toBe('done');
    channel.port1.postMessage('close');
    // It closes its connection and its port, and its thread ends by itself.
    expect(await ended).toBe(0);
    channel.port1.close();
  });
});
