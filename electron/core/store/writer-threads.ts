/**
 * The store's threads besides the writer itself (run by writer-worker.ts in their modes): the
 * writer's checkpointer and the quick_check of a database file, and the names all of them carry.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import type { DatabaseCtor } from './db';
import { QUICK_CHECK_SQL } from './sql';
import { type CheckpointMessage, type WriterReply, writerErrorReply } from './writer-protocol';

/**
 * Names the calling thread on Linux (top -H, /proc/<pid>/task/*\/comm, the bench's CPU split);
 * elsewhere this does nothing.
 */
export function nameThread(name: string): void {
  try {
    fs.writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // not Linux, or /proc not mounted
  }
}

/**
 * On Linux the calling thread yields the CPU (nice 10) to the writer and the event loop: its
 * copying can wait, their commits and answers cannot. Elsewhere it runs as it is.
 */
function yieldCpu(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed
  }
}

/**
 * The writer's checkpointer (writer-protocol.ts CHECKPOINT): on its own connection, a PASSIVE
 * checkpoint on request, never waiting for anyone (a busy WAL is tried again at the next
 * request); it answers the writer when done, and closes when the writer does.
 */
export function runCheckpointer(Driver: DatabaseCtor, file: string, port: MessagePort): void {
  const db = new Driver(file);
  db.pragma('busy_timeout = 0');
  db.pragma('wal_autocheckpoint = 0');
  yieldCpu();
  port.on('message', (m: CheckpointMessage) => {
    if (m === 'close') {
      db.close();
      port.close();
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy: the writer asks again after its next maxBytes
    }
    port.postMessage('done' satisfies CheckpointMessage);
  });
}

/**
 * PRAGMA quick_check of `file` on a read-only connection of its own: it reads every page, O(size),
 * so it runs on a thread beside the writer and never delays the open or a commit.
 */
export function quickCheckWriterReply(
  Driver: DatabaseCtor,
  file: string,
  busyTimeoutMs: number,
): WriterReply {
  try {
    const db = new Driver(file, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const rows = db.prepare(QUICK_CHECK_SQL).raw(true).all() as unknown as unknown[][];
    db.close();
    return { ok: true, problems: rows.map((r) => String(r[0])) };
  } catch (err) {
    return writerErrorReply(err);
  }
}
