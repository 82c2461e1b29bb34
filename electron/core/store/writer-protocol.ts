/**
 * What the main thread and the database's writer thread say to each other (writer.ts is the main
 * thread's side, writer-worker.ts the thread's): the settings every thread starts with, the
 * requests and the replies. Types and constants only, so both sides import it and neither
 * carries a copy.
 */
import type { MessagePort } from 'node:worker_threads';
import type { EventRow, RetentionClass } from './records';

/** Per class, the number of events kept (oldest trimmed first); null keeps everything. */
export type ClassCaps = Record<RetentionClass, number | null>;

/**
 * When the writer copies the WAL back into the database (a checkpoint). SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 pages, so the notifications waiting on
 * that commit also wait for the copy and its fsync of the database file. The writer turns it off.
 * When it has been idle `idleMs` it checkpoints itself (TRUNCATE: the WAL file goes back to
 * nothing). Under load, once about `maxBytes` went into the WAL since the last request, it asks
 * its checkpointer, a thread of its own with its own connection and nice 10 (it yields the CPU
 * to the writer and the event loop), for a PASSIVE checkpoint, which WAL lets run beside the
 * writer's commits; then for another pass over what was committed meanwhile, until less than
 * `catchUpBytes` is left, which the writer copies itself between two commits so that the WAL is
 * whole in the database and the next commit starts it over. Past `hardBytes` since the WAL last
 * started over (a checkpointer that cannot keep up) the writer copies everything itself, so the
 * WAL stays bounded. Why not in the writer every 4 MB: each checkpoint then held the commits
 * behind it for several ms (the notify bench's p99; docs/benchmarks.md).
 */
export const CHECKPOINT = {
  idleMs: 50,
  maxBytes: 16 * 1024 ** 2,
  hardBytes: 64 * 1024 ** 2,
  catchUpBytes: 128 * 1024,
} as const;

/**
 * When pending text is indexed: a chunk at a time, when the writer has been idle
 * CHECKPOINT.idleMs (between chunks, requests that arrived go first), and after every commit
 * while more than maxPending rows wait (so a writer that is never idle keeps the backlog, and the
 * scan search makes of it, bounded).
 */
export const INDEX = { chunk: 512, maxPending: 20_000 } as const;

/**
 * How the writer makes room for the event loop when both share one core (the bench pins the
 * process to one CPU; a busy machine's scheduler may put them on one too). Linux lets a running
 * thread go on for the rest of its time slice before a thread it woke runs, so a callback
 * arriving while the writer commits a batch of callbacks waits for that. So in a batch of at most
 * `upToBatch` non-durable rows the writer sleeps `ms` after every `everyRows` rows: a waiting
 * event loop gets the core then. The rows go into SQLite sql.ts ROWS_PER_INSERT at a time, and a
 * pause follows each such insert at once: the writer holds the core for one insert at a time,
 * then for the commit. A larger batch means the event loop was busy for the whole coalescing
 * window: pausing there would only add thread switches, so it runs at once, as a durable commit
 * always does (its callers are waiting for it). The figures behind these numbers are in
 * docs/benchmarks.md ("Figures moved from code comments").
 */
export const YIELD = { everyRows: 8, upToBatch: 128, ms: 0.02 } as const;

/** The writer thread's name on Linux (at most 15 bytes): `top -H` and the bench show it. */
export const WRITER_THREAD_NAME = 'dets-writer';
/** Its checkpointer's (CHECKPOINT). */
export const CHECKPOINT_THREAD_NAME = 'dets-checkpoint';
/** The thread of a quick_check (writer.ts quickCheck). */
export const CHECK_THREAD_NAME = 'dets-check';

/** What every thread of the store is started with (its workerData). */
export interface WorkerData {
  /** libsql's entry, as the main thread resolved it (unpacked from app.asar when packaged). */
  libsql: string;
  /** The database file. */
  file: string;
  /** db.ts BUSY_TIMEOUT_MS. */
  busyTimeoutMs: number;
  caps: ClassCaps;
  /** write: the writer; check: PRAGMA quick_check; checkpoint: the writer's checkpointer. */
  mode: 'write' | 'check' | 'checkpoint';
  /** write and checkpoint: their ends of the channel between the writer and its checkpointer. */
  port?: MessagePort;
  /** Linux thread name (WRITER_THREAD_NAME, CHECKPOINT_THREAD_NAME, CHECK_THREAD_NAME). */
  threadName: string;
}

/**
 * One statement of a small state transaction (profile-db.ts): SQL and its parameters. The steps
 * of one `exec` request commit together, durably, or not at all.
 */
export type Step = readonly [sql: string, params: readonly unknown[]];

/** A request to the writer thread. */
export type Request =
  | {
      type: 'commit';
      rows: EventRow[];
      durable: boolean;
      meta?: [string, string][];
      keepAll?: boolean;
      /**
       * The places in `rows` of accepted notifications to store as repeats when an accepted
       * one with their transaction_id is stored already (or earlier in this batch).
       */
      check?: number[];
    }
  | { type: 'exec'; steps: Step[] }
  /**
   * Several state transactions in one durable commit (profile-db.ts's group commit): each group
   * inside its own savepoint, so a group that fails is undone alone and named in the reply.
   */
  | { type: 'execGroups'; groups: Step[][] }
  | { type: 'close' };

/**
 * The writer's answer to a request (or a quick_check thread's only message): a worker message,
 * not an HTTP reply (that is `http/reply.ts` `Reply`).
 */
export interface WriterReply {
  ok: boolean;
  message?: string;
  code?: string;
  /** `commit`: the seq given to the batch's first new row (the others follow in order). */
  firstSeq?: number;
  /** `commit`: the places of the `check` rows stored as repeats. */
  repeats?: number[];
  /** `commit`: how many times the writer stepped aside for the event loop (YIELD). */
  yields?: number;
  /** `execGroups`: the groups undone alone (their place and why); the others are committed. */
  failed?: { index: number; message: string }[];
  /** `check` mode: quick_check's lines ("ok" when sound). */
  problems?: string[];
}

/** What the writer and its checkpointer say to each other over their channel. */
export type CheckpointMessage = 'checkpoint' | 'done' | 'close';

/** A failure as a reply: its message and, from SQLite, its code (SQLITE_FULL, SQLITE_IOERR…). */
export function writerErrorReply(err: unknown): WriterReply {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = e?.code;
  return {
    ok: false,
    message: String(e?.message || err),
    ...(typeof code === 'string' ? { code } : {}),
  };
}
