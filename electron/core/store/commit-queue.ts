/**
 * The event store's way to the writer (issue 12; DESIGN.md "Storage"): appends queue here as
 * rows and are committed by the writer thread (writer.ts) in group commits. While one commit
 * runs, what arrives queues, and the next commit takes the whole queue (an eager group commit).
 * A durable append (a notification) resolves only after its commit returned, with
 * `synchronous=FULL`; other appends wait up to COALESCE_MS for company.
 *
 * Faults: a failed commit (disk full, I/O error) rejects the durable appends in it (the bank
 * answers 500, nothing is acknowledged), keeps the others for a retry, and turns the health to
 * `failing`; what waits is retried every RETRY_MS, and the first commit of real rows that
 * succeeds turns it back to `ok` (never a probe: scheduleRetry). No restart, no permanent
 * failure flag.
 */
import { ConsoleError } from '../../contract/errors';
import type { EventSummary } from '../../contract/schemas/events';
import { UncommittedTx } from './append-row';
import { type EventRow, formatEventId } from './records';
import type { HealthState } from './store-health';
import { WriterClient } from './writer';
import type { ClassCaps, WriterReply } from './writer-protocol';

/** Non-durable appends wait at most this long for company before they are committed. */
const COALESCE_MS = 20;
/** …or go at once when this many are waiting. */
const COALESCE_MAX = 512;
/** While writes fail, a retry this often. */
const RETRY_MS = 1000;
/** Non-durable events kept for a retry while writes fail; older ones are given up (and counted). */
const RETRY_MAX = 10_000;

interface Pending {
  /** null: a flush marker. */
  row: EventRow | null;
  summary: EventSummary | null;
  durable: boolean;
  /** AppendOptions.repeatCheck: the writer decides accepted or repeat (writer-commit.ts). */
  repeatCheck: boolean;
  resolve: (s: EventSummary) => void;
  reject: (err: unknown) => void;
}

/** What the queue tells its store: a row committed (its summary, with its id). */
export type OnCommitted = (summary: EventSummary) => void;

/**
 * The queue of rows on their way to the writer, one commit in flight at a time.
 *
 * @example
 * const queue = new CommitQueue(file, caps, health, (s) => hub.emit('events.appended', s));
 * const summary = await queue.add(row, summary, { durable: true, repeatCheck: false });
 */
export class CommitQueue {
  private writer: WriterClient | null = null;
  private queue: Pending[] = [];
  private retry: Pending[] = [];
  private inFlight = false;
  private coalesceTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Lower-cased transaction_ids appended but not yet committed, for hasUncommitted(). */
  private readonly uncommittedTx = new UncommittedTx();
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly caps: ClassCaps,
    private readonly health: HealthState,
    private readonly committed: OnCommitted,
  ) {}

  /** Queues a row; resolves with its summary (id given) once committed. */
  add(
    row: EventRow,
    summary: EventSummary,
    how: { durable: boolean; repeatCheck: boolean },
  ): Promise<EventSummary> {
    this.uncommittedTx.add(row);
    return new Promise<EventSummary>((resolve, reject) => {
      this.queue.push({ row, summary, ...how, resolve, reject });
      if (how.durable || this.queue.length >= COALESCE_MAX) this.pump();
      else this.pumpSoon();
    });
  }

  /** Resolves once everything queued before it is committed (durably). */
  flush(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({
        row: null,
        summary: null,
        durable: true,
        repeatCheck: false,
        resolve: () => resolve(),
        reject,
      });
      this.pump();
    });
  }

  /** Whether a transaction_id (lower case) was appended and is not committed yet. */
  hasUncommitted(txLower: string): boolean {
    return this.uncommittedTx.has(txLower);
  }

  /** The writer, started again if it stopped (the migration of an old profile uses it too). */
  writerNow(): WriterClient {
    if (!this.writer?.alive) this.writer = new WriterClient(this.file, this.caps);
    return this.writer;
  }

  /** Before closing: no more retries; what waits for one gets one last chance, then fails. */
  async drain(): Promise<void> {
    this.stopRetrying();
    this.queue = [...this.retry, ...this.queue];
    this.retry = [];
    await this.flush().catch(() => undefined);
  }

  /** Closes the writer; a commit that fails from now on is not retried. */
  async close(): Promise<void> {
    this.stopRetrying();
    this.closed = true;
    await this.writer?.close();
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
    }, COALESCE_MS);
  }

  /** A commit of `rows` by the writer (started if need be); a writer that cannot start rejects. */
  private commit(rows: EventRow[], durable: boolean, check: number[]): Promise<WriterReply> {
    try {
      return this.writerNow().request({ type: 'commit', rows, durable, ...(check.length ? { check } : {}) });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** One commit at a time; each takes everything that queued meanwhile (group commit). */
  private pump(): void {
    if (this.inFlight || this.queue.length === 0) return;
    if (this.coalesceTimer) clearTimeout(this.coalesceTimer);
    this.coalesceTimer = null;
    const batch = this.queue;
    this.queue = [];
    const rows: EventRow[] = [];
    /** The places in `rows` of the notifications the writer checks for an earlier acceptance. */
    const check: number[] = [];
    let durable = false;
    for (const p of batch) {
      if (p.row) {
        if (p.repeatCheck) check.push(rows.length);
        rows.push(p.row);
      }
      if (p.durable) durable = true;
    }
    this.inFlight = true;
    const done =
      rows.length === 0
        ? Promise.resolve({ ok: true, firstSeq: 0 } as WriterReply)
        : this.commit(rows, durable, check);
    void done
      .then(
        (reply) =>
          reply.ok
            ? this.settle(batch, reply.firstSeq ?? 0, reply.repeats ?? [])
            : this.failBatch(batch, reply.message ?? 'commit failed'),
        (err: unknown) => this.failBatch(batch, err instanceof Error ? err.message : String(err)),
      )
      .finally(() => {
        this.inFlight = false;
        if (this.queue.some((p) => p.durable) || this.queue.length >= COALESCE_MAX) this.pump();
        else if (this.queue.length > 0) this.pumpSoon();
      });
  }

  private forget(p: Pending): void {
    if (p.row) this.uncommittedTx.remove(p.row);
  }

  /**
   * Resolves a committed batch; its rows got the ids from `firstSeq` on, in order, and those at
   * the places `repeats` (of the batch's rows) were stored as repeats.
   */
  private settle(batch: Pending[], firstSeq: number, repeats: number[]): void {
    if (batch.some((p) => p.row)) this.health.set('ok', null);
    const repeat = new Set(repeats);
    let seq = firstSeq;
    let place = 0;
    for (const p of batch) {
      this.forget(p);
      if (!p.summary) {
        p.resolve(null as unknown as EventSummary);
        continue;
      }
      if (repeat.has(place++)) p.summary.outcome = 'repeat';
      p.summary.id = formatEventId(seq++);
      p.resolve(p.summary);
      this.committed(p.summary);
    }
  }

  private failBatch(batch: Pending[], why: string): void {
    this.health.set('failing', why);
    const err = new ConsoleError('INTERNAL', `The event store could not write to ${this.file}: ${why}`);
    for (const p of batch) {
      if (p.durable || this.closed) {
        // An acknowledgement waits on this one: it fails now, so the answer is a 500.
        this.forget(p);
        p.reject(err);
      } else this.retry.push(p);
    }
    while (this.retry.length > RETRY_MAX) {
      const p = this.retry.shift()!;
      this.forget(p);
      p.reject(err);
    }
    this.scheduleRetry();
  }

  /**
   * While failing: retry what waits until a commit of it succeeds. Only a real write turns the
   * state back to `ok` (issue 24 item 8): a probe commit of one page fits in the little room a
   * full disk leaves while a notification's commit (its row, index entries and text: about ten
   * pages) does not, so a probe's success made the header flip between ok and failing every
   * second while every real write still failed. With nothing waiting, the next append decides.
   */
  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.health.current !== 'failing' || this.closed || this.retry.length === 0) return;
      this.queue = [...this.retry, ...this.queue];
      this.retry = [];
      this.pump();
    }, RETRY_MS);
    this.retryTimer.unref();
  }
}
