/**
 * The one group-commit mechanism of the store (DESIGN.md "Storage": a notification's 200 only
 * after the transaction holding it is committed, group commit across concurrent requests
 * allowed). Used by the SQLite event queue (commit-queue.ts), the PostgreSQL one (pg-commit.ts)
 * and the profile database's small state writes (profile-db.ts); what differs between them is
 * only the commit function (and whether a health state follows the commits).
 *
 * One commit runs at a time; what arrives meanwhile queues, and the next commit takes the whole
 * queue (an eager group commit). A durable item starts a commit at once; others wait up to
 * `coalesceMs` for company, or go when `coalesceMax` wait.
 *
 * Faults: a commit that fails as a whole (disk full, I/O error, a lost connection) rejects its
 * durable items (nothing is acknowledged: the bank answers 500), keeps the others for a retry
 * every RETRY_MS (at most RETRY_MAX; older ones are given up), and turns the health `failing`;
 * the first commit of real items that succeeds turns it back to `ok` (never a probe: issue 24
 * item 8). A commit function may also fail one item alone (an `Error` in its place), which
 * rejects that item only.
 */
import type { ConsoleError } from '../../contract/errors';
import type { HealthState } from './store-health';

/** While writes fail, a retry this often. */
const RETRY_MS = 1000;
/** Non-durable items kept for a retry while writes fail; older ones are given up. */
const RETRY_MAX = 10_000;

/**
 * Commits one batch of items (in queue order) in one transaction. Answers, in the same order,
 * what each item resolves with, or an `Error` for an item that failed alone; throws (or
 * rejects) when the batch failed as a whole.
 */
export type CommitBatch<T, R> = (items: T[], durable: boolean) => Promise<(R | Error)[]>;

export interface GroupCommitOptions<T, R> {
  commit: CommitBatch<T, R>;
  /** The error a failed commit's items get, from the failure's own message (naming the database). */
  failure: (why: string) => ConsoleError;
  /** Set `failing` on a failed commit and `ok` on a successful one; none for the state writes. */
  health?: HealthState;
  /** Non-durable items wait at most this long for company (0: at once). */
  coalesceMs: number;
  /** …or go at once when this many are waiting. */
  coalesceMax: number;
  /** An item leaves (resolved or rejected; not when it is kept for a retry). */
  onDone?: (item: T) => void;
  /** An item is kept for a retry after its batch failed (to undo what the failed commit gave it). */
  onRetry?: (item: T) => void;
}

interface Pending<T, R> {
  /** undefined: a flush marker. */
  item: T | undefined;
  durable: boolean;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

/**
 * The queue of items on their way to a database, one commit in flight at a time.
 *
 * @example
 * const q = new GroupCommit<Step[], void>({ commit: (groups) => run(groups), failure: (why) => new ConsoleError('INTERNAL', why), coalesceMs: 0, coalesceMax: 512 });
 * await q.add(steps, true);
 */
export class GroupCommit<T, R> {
  private queue: Pending<T, R>[] = [];
  private retry: Pending<T, R>[] = [];
  private inFlight = false;
  private coalesceTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: GroupCommitOptions<T, R>) {}

  /** Queues an item; resolves once it is committed (with what the commit gave it). */
  add(item: T, durable: boolean): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, durable, resolve, reject });
      if (durable || this.queue.length >= this.options.coalesceMax) this.pump();
      else this.pumpSoon();
    });
  }

  /** Resolves once everything queued before it is committed (durably); rejects if that failed. */
  flush(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item: undefined, durable: true, resolve: () => resolve(), reject });
      this.pump();
    });
  }

  /** Before closing: no more retries; what waits for one gets one last chance, then fails. */
  async drain(): Promise<void> {
    this.stopRetrying();
    this.queue = [...this.retry, ...this.queue];
    this.retry = [];
    await this.flush().catch(() => undefined);
  }

  /** From now on a failed commit is not retried: its items fail. */
  close(): void {
    this.stopRetrying();
    this.closed = true;
  }

  private stopRetrying(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private pumpSoon(): void {
    if (this.coalesceTimer || this.inFlight) return;
    this.coalesceTimer = setTimeout(() => {
      this.coalesceTimer = null;
      this.pump();
    }, this.options.coalesceMs);
  }

  /** One commit at a time; each takes everything that queued meanwhile (group commit). */
  private pump(): void {
    if (this.inFlight || this.queue.length === 0) return;
    if (this.coalesceTimer) clearTimeout(this.coalesceTimer);
    this.coalesceTimer = null;
    const batch = this.queue;
    this.queue = [];
    const items: T[] = [];
    let durable = false;
    for (const p of batch) {
      if (p.item !== undefined) items.push(p.item);
      if (p.durable) durable = true;
    }
    this.inFlight = true;
    let done: Promise<(R | Error)[]>;
    try {
      done = items.length === 0 ? Promise.resolve([]) : this.options.commit(items, durable);
    } catch (err) {
      done = Promise.reject(err);
    }
    void done
      .then(
        (results) => this.settle(batch, results),
        (err: unknown) => this.failBatch(batch, err instanceof Error ? err.message : String(err)),
      )
      .finally(() => {
        this.inFlight = false;
        if (this.queue.some((p) => p.durable) || this.queue.length >= this.options.coalesceMax) this.pump();
        else if (this.queue.length > 0) this.pumpSoon();
      });
  }

  private leave(p: Pending<T, R>): void {
    if (p.item !== undefined) this.options.onDone?.(p.item);
  }

  private settle(batch: Pending<T, R>[], results: (R | Error)[]): void {
    if (results.length > 0) this.options.health?.set('ok', null);
    let place = 0;
    for (const p of batch) {
      this.leave(p);
      if (p.item === undefined) {
        p.resolve(undefined as R);
        continue;
      }
      const r = results[place++];
      if (r instanceof Error) p.reject(r);
      else p.resolve(r as R);
    }
  }

  private failBatch(batch: Pending<T, R>[], why: string): void {
    this.options.health?.set('failing', why);
    const err = this.options.failure(why);
    for (const p of batch) {
      if (p.durable || this.closed) {
        // An acknowledgement waits on this one: it fails now, so the answer is a 500.
        this.leave(p);
        p.reject(err);
      } else {
        if (p.item !== undefined) this.options.onRetry?.(p.item);
        this.retry.push(p);
      }
    }
    while (this.retry.length > RETRY_MAX) {
      const p = this.retry.shift()!;
      this.leave(p);
      p.reject(err);
    }
    this.scheduleRetry();
  }

  /**
   * While failing: retry what waits until a commit of it succeeds. Only a real write turns the
   * state back to `ok` (issue 24 item 8): a probe commit of one page fits in the little room a
   * full disk leaves while a notification's commit (its row, index entries and text: about ten
   * pages) does not, so a probe's success made the header flip between ok and failing every
   * second while every real write still failed. With nothing waiting, the next item decides.
   */
  private scheduleRetry(): void {
    if (this.retryTimer || this.closed || this.retry.length === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closed || this.retry.length === 0) return;
      this.queue = [...this.retry, ...this.queue];
      this.retry = [];
      this.pump();
    }, RETRY_MS);
    this.retryTimer.unref();
  }
}
