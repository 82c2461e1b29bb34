/**
 * The database's writer thread (issue 12, issue 25 item 2): the entry of a worker_threads
 * Worker, built by scripts/build.mjs as its own file (`dist/workers/writer-worker.mjs`, libsql
 * left external) and started by writer.ts with `new Worker(url)` (common/worker-file.ts finds
 * the file from every host). It runs in one of three modes (writer-protocol.ts WorkerData):
 *
 * - `write`: the writer. It owns the write connection, so a commit's fsync never blocks the event
 *   loop that answers callbacks within their 1 s budget (spec 4.2). It answers each request
 *   (writer-protocol.ts Request) in order: a group commit of event rows (writer-commit.ts), a
 *   small state transaction (`exec`), or `close`; between requests, upkeep (writer-upkeep.ts).
 * - `checkpoint`: the writer's checkpointer (writer-threads.ts).
 * - `check`: one PRAGMA quick_check, one message back (writer-threads.ts).
 *
 * Nothing runs when this module is imported on the main thread (tests import the modules it
 * uses, not this one).
 */
import { isMainThread, type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { DatabaseCtor } from './db';
import { EventCommitter } from './writer-commit';
import { loadDriver, WriterConnection } from './writer-connection';
import {
  writerErrorReply,
  type WriterReply,
  type Request,
  type Step,
  type WorkerData,
} from './writer-protocol';
import { nameThread, quickCheckWriterReply, runCheckpointer } from './writer-threads';
import { WriterUpkeep } from './writer-upkeep';

/** Bytes a state transaction is counted as in the WAL's growth (a page: they are a row or a few). */
const STATE_TRANSACTION_BYTES = 4096;

/** The writer: answers every request on `parent` in order, one reply each, with its id. */
function runWriter(Driver: DatabaseCtor, data: WorkerData, parent: MessagePort): void {
  const conn = new WriterConnection(Driver, data.file, data.busyTimeoutMs);
  const upkeep = new WriterUpkeep(conn, data.port);
  const events = new EventCommitter(conn, data.caps);

  /** A small state transaction (profile-db.ts): durable, all or nothing. */
  const exec = (steps: Step[]): void => {
    conn.setSync('FULL');
    conn.inTransaction(() => {
      for (const [sql, params] of steps) conn.statement(sql).run(...params);
    });
    upkeep.wrote(STATE_TRANSACTION_BYTES, 0);
  };

  /**
   * Several state transactions in one durable commit (one fsync for all: the delivery engine
   * saves thousands of deliveries a second, issue 27), each group in a savepoint of its own so
   * that one group's failure undoes that group only.
   */
  const execGroups = (groups: Step[][]): WriterReply => {
    const failed: { index: number; message: string }[] = [];
    conn.setSync('FULL');
    conn.inTransaction(() => {
      groups.forEach((steps, index) => {
        conn.db.exec('SAVEPOINT g');
        try {
          for (const [sql, params] of steps) conn.statement(sql).run(...params);
          conn.db.exec('RELEASE g');
        } catch (err) {
          conn.db.exec('ROLLBACK TO g');
          conn.db.exec('RELEASE g');
          failed.push({ index, message: String((err as Error | null)?.message ?? err) });
        }
      });
    });
    upkeep.wrote(STATE_TRANSACTION_BYTES * groups.length, 0);
    return failed.length > 0 ? { ok: true, failed } : { ok: true };
  };

  const answer = (m: Request): WriterReply => {
    if (m.type === 'exec') exec(m.steps);
    else if (m.type === 'execGroups') return execGroups(m.groups);
    else if (m.type === 'commit') {
      const c = events.commit(m.rows, {
        durable: m.durable,
        meta: m.meta ?? [],
        keepAll: m.keepAll === true,
        check: m.check ?? [],
      });
      upkeep.wrote(c.bytes, c.texts);
      return {
        ok: true,
        firstSeq: c.first,
        yields: c.yields,
        ...(c.repeats.length ? { repeats: c.repeats } : {}),
      };
    } else if (m.type === 'close') {
      upkeep.stop();
      try {
        conn.db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // a reader holds the WAL; the next open checkpoints
      }
      conn.db.close();
    }
    return { ok: true };
  };

  parent.on('message', (m: Request & { id: number }) => {
    let reply: WriterReply;
    try {
      reply = answer(m);
    } catch (err) {
      reply = writerErrorReply(err);
    }
    parent.postMessage({ id: m.id, ...reply });
  });
}

function main(parent: MessagePort): void {
  const data = workerData as WorkerData;
  nameThread(data.threadName);
  const Driver = loadDriver(data.libsql);
  if (data.mode === 'check') parent.postMessage(quickCheckWriterReply(Driver, data.file, data.busyTimeoutMs));
  else if (data.mode === 'checkpoint') runCheckpointer(Driver, data.file, data.port!);
  else runWriter(Driver, data, parent);
}

if (!isMainThread && parentPort) main(parentPort);
