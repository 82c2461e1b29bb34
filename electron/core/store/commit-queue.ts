/**
 * The event store's way to the writer (issue 12; DESIGN.md "Storage"): appends queue here as
 * rows and are committed by the writer thread (writer.ts) in group commits. While one commit
 * runs, what arrives queues, and the next commit takes the whole queue (an eager group commit).
 * A durable append (a notification) resolves only after its commit returned, with
 * `synchronous=FULL`; other appends wait up to COALESCE_MS for company.
 *
 * The queueing, the coalescing and the faults (a failed commit rejects the durable appends in it,
 * keeps the others for a retry, turns the health `failing` until a real commit succeeds) are the
 * store's one group-commit mechanism (group-commit.ts); what is this file's own is the commit:
 * a request to the writer thread. No restart, no permanent failure flag.
 */
import { ConsoleError } from '../../contract/errors';
import type { EventSummary } from '../../contract/schemas/events';
import { UncommittedTx } from './append-row';
import { GroupCommit } from './group-commit';
import { type EventRow, formatEventId } from './records';
import type { HealthState } from './store-health';
import { WriterClient } from './writer';
import type { ClassCaps } from './writer-protocol';

/** Non-durable appends wait at most this long for company before they are committed. */
const COALESCE_MS = 20;
/** …or go at once when this many are waiting. */
const COALESCE_MAX = 512;

/** One append on its way: the row, the summary it resolves with, and how it is committed. */
interface Append {
  row: EventRow;
  summary: EventSummary;
  /** AppendOptions.repeatCheck: the writer decides accepted or repeat (writer-commit.ts). */
  repeatCheck: boolean;
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
  private readonly group: GroupCommit<Append, EventSummary>;
  /** Lower-cased transaction_ids appended but not yet committed, for hasUncommitted(). */
  private readonly uncommittedTx = new UncommittedTx();

  constructor(
    private readonly file: string,
    private readonly caps: ClassCaps,
    health: HealthState,
    private readonly committed: OnCommitted,
  ) {
    this.group = new GroupCommit<Append, EventSummary>({
      commit: (appends, durable) => this.commit(appends, durable),
      failure: (why) => new ConsoleError('INTERNAL', `The event store could not write to ${file}: ${why}`),
      health,
      coalesceMs: COALESCE_MS,
      coalesceMax: COALESCE_MAX,
      onDone: (a) => this.uncommittedTx.remove(a.row),
    });
  }

  /** Queues a row; resolves with its summary (id given) once committed. */
  add(
    row: EventRow,
    summary: EventSummary,
    how: { durable: boolean; repeatCheck: boolean },
  ): Promise<EventSummary> {
    this.uncommittedTx.add(row);
    return this.group.add({ row, summary, repeatCheck: how.repeatCheck }, how.durable);
  }

  /** Resolves once everything queued before it is committed (durably). */
  flush(): Promise<void> {
    return this.group.flush();
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
  drain(): Promise<void> {
    return this.group.drain();
  }

  /** Closes the writer; a commit that fails from now on is not retried. */
  async close(): Promise<void> {
    this.group.close();
    await this.writer?.close();
  }

  /**
   * One group commit by the writer (started if need be): the rows get the ids from the reply's
   * `firstSeq` on, in order, and those at the places `repeats` were stored as repeats.
   */
  private async commit(appends: Append[], durable: boolean): Promise<EventSummary[]> {
    /** The places in the batch of the notifications the writer checks for an earlier acceptance. */
    const check: number[] = [];
    appends.forEach((a, i) => a.repeatCheck && check.push(i));
    const reply = await this.writerNow().request({
      type: 'commit',
      rows: appends.map((a) => a.row),
      durable,
      ...(check.length ? { check } : {}),
    });
    if (!reply.ok) throw new Error(reply.message ?? 'commit failed');
    const repeat = new Set(reply.repeats ?? []);
    let seq = reply.firstSeq ?? 0;
    return appends.map(({ summary }, i) => {
      if (repeat.has(i)) summary.outcome = 'repeat';
      summary.id = formatEventId(seq++);
      this.committed(summary);
      return summary;
    });
  }
}
