/**
 * The main thread's side of the database's single writer (issue 12): the writer is a
 * worker_threads Worker (writer-worker.ts, built as its own file and started with
 * `new Worker(url)`) that owns the write connection, so a commit's fsync never blocks the event
 * loop that answers callbacks within their 1 s budget (spec 4.2). The main thread hands it
 * batches of ready rows (records.ts) and waits for "committed"; reads use their own connection
 * in the main thread and, WAL being what it is, never wait for this one. What the two threads
 * say to each other is writer-protocol.ts; the SQL both run is sql.ts.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { workerFile } from '../common';
import { BUSY_TIMEOUT_MS, libsqlPath } from './db';
import {
  CHECK_THREAD_NAME,
  CHECKPOINT_THREAD_NAME,
  type ClassCaps,
  type WriterReply,
  type Request,
  type WorkerData,
  WRITER_THREAD_NAME,
} from './writer-protocol';

/** A thread of the store on `file`, running the built writer-worker.ts in `mode`. */
function startWorker(
  file: string,
  caps: ClassCaps,
  mode: WorkerData['mode'],
  threadName: string,
  port?: MessagePort,
): Worker {
  const workerData: WorkerData = {
    libsql: libsqlPath(),
    file,
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    caps,
    mode,
    threadName,
    ...(port ? { port } : {}),
  };
  return new Worker(workerFile('writer-worker'), { workerData, ...(port ? { transferList: [port] } : {}) });
}

/**
 * The writer and its checkpointer (writer-protocol.ts CHECKPOINT), each a thread with its own
 * connection: requests in, replies in order. A writer that stopped rejects what waits and every
 * later request (`alive` turns false; the store starts a new pair).
 *
 * @example
 * const writer = new WriterClient(dbFile(dataDir), DEFAULT_RETENTION);
 * const reply = await writer.request({ type: 'commit', rows, durable: true });
 * await writer.close();
 */
export class WriterClient {
  private readonly worker: Worker;
  /** The writer's checkpointer (CHECKPOINT): its own thread and connection. */
  private readonly checkpointer: Worker;
  /** Settles when the checkpointer's thread has ended, however (closed, failed, terminated). */
  private readonly checkpointerEnded: Promise<unknown>;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (r: WriterReply) => void; reject: (e: Error) => void }
  >();
  private dead: Error | null = null;
  private closing = false;

  constructor(file: string, caps: ClassCaps) {
    const channel = new MessageChannel();
    this.checkpointer = startWorker(file, caps, 'checkpoint', CHECKPOINT_THREAD_NAME, channel.port2);
    this.checkpointer.unref();
    this.checkpointerEnded = new Promise((resolve) => this.checkpointer.once('exit', resolve));
    // Its failure only leaves the checkpoints to the writer (CHECKPOINT.hardBytes).
    this.checkpointer.on('error', () => undefined);
    this.worker = startWorker(file, caps, 'write', WRITER_THREAD_NAME, channel.port1);
    this.worker.unref();
    this.worker.on('message', (m: WriterReply & { id: number }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      w?.resolve(m);
    });
    const die = (err: Error) => {
      // A writer that stopped leaves no checkpointer behind (the store starts a new pair).
      if (this.dead === null && !this.closing) void this.checkpointer.terminate();
      this.dead ??= err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`the database writer stopped (exit ${code})`)));
  }

  /** False once the writer thread stopped (a fault, or close). */
  get alive(): boolean {
    return this.dead === null;
  }

  /** Sends `req`; its reply (ok or not), or a rejection when the writer thread stopped. */
  request(req: Request): Promise<WriterReply> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<WriterReply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // Pending work keeps the process alive; an idle writer does not.
      this.worker.ref();
      this.worker.postMessage({ id, ...req });
    });
  }

  /** Closes the writer's connection (a last PASSIVE checkpoint) and ends both threads. */
  async close(): Promise<void> {
    if (this.dead) {
      await this.checkpointer.terminate();
      return;
    }
    this.closing = true;
    await this.request({ type: 'close' }).catch(() => undefined);
    await this.worker.terminate();
    // The writer's close told the checkpointer to close its connection and its port, after which
    // its thread ends by itself; stopping both threads at once could crash the process as it
    // exits (libsql's native teardown, seen under vitest's forks). Cut it only if it hangs.
    // (A checkpointer that failed earlier has ended already: nothing to wait for.)
    const late = setTimeout(() => void this.checkpointer.terminate(), 2_000);
    await this.checkpointerEnded;
    clearTimeout(late);
  }
}

/**
 * Runs `PRAGMA quick_check` on its own thread and connection: the problems found, or [].
 *
 * @example
 * const problems = await quickCheck(dbFile(dataDir)); // [] when sound
 */
export function quickCheck(file: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const w = startWorker(file, {} as ClassCaps, 'check', CHECK_THREAD_NAME);
    w.once('message', (r: WriterReply) => {
      void w.terminate();
      if (r.ok) resolve((r.problems ?? []).filter((p) => p !== 'ok'));
      else resolve([r.message ?? 'quick_check failed']);
    });
    w.once('error', reject);
  });
}
