/**
 * Group commits to PostgreSQL (issue 30 item 4; DESIGN.md "Storage": a notification's 200 only
 * after the transaction holding it is committed, group commit allowed). What arrives while one
 * commit runs goes into the next; a durable append resolves only after COMMIT returned. Several
 * hubs write one database: ids come from the table's sequence, and a repeated transaction_id is
 * decided inside the transaction under an advisory lock per transaction_id, so two hubs taking
 * the same notification at once store one `accepted` and one `repeat`.
 */
import type { Pool, PoolClient } from 'pg';
import { ConsoleError } from '../../contract/errors';
import type { EventSummary } from '../../contract/schemas/events';
import { UncommittedTx } from './append-row';
import { GroupCommit } from './group-commit';
import { PG_EVENT_COLUMNS } from './event-columns';
import { PG_EVENTS_CHANNEL } from './pg-schema';
import { type EventRow, formatEventId, PENDING_ID, ROW } from './records';
import type { HealthState } from './store-health';
import type { ClassCaps } from './writer-protocol';

/** Non-durable appends wait at most this long for company. */
const COALESCE_MS = 20;
/** …or go at once when this many wait. */
const COALESCE_MAX = 512;
/** A NOTIFY payload must stay under PostgreSQL's 8000 bytes. */
const NOTIFY_BYTES = 7000;
const PENDING_PREFIX = `{"id":"${PENDING_ID}"`;

/** One append on its way (its row and summary get their seq at the commit). */
interface Pending {
  row: EventRow;
  summary: EventSummary;
  repeatCheck: boolean;
}

/** What one hub announces on the events channel: its id and the summaries it committed. */
export interface LiveBatch {
  hub: string;
  events: (EventSummary | { id: string })[];
}

/** The columns an INSERT fills from an EventRow (event-columns.ts), with their PostgreSQL array types. */
const COLUMNS: [name: string, place: number, type: string][] = PG_EVENT_COLUMNS.map((c) => [
  c.name,
  c.place,
  c.pgArray,
]);
const INSERT_SQL = `INSERT INTO events (${COLUMNS.map((c) => c[0]).join(', ')}) SELECT * FROM unnest(${COLUMNS.map(
  (c, i) => `$${i + 1}::${c[2]}[]`,
).join(', ')})`;

/**
 * The queue of rows on their way to PostgreSQL, one commit in flight at a time.
 *
 * @example
 * const q = new PgCommitQueue(pool, caps, health, 'hub-1', (s) => hub.emit('events.appended', s));
 * await q.add(row, summary, { durable: true, repeatCheck: true });
 */
export class PgCommitQueue {
  private readonly group: GroupCommit<Pending, EventSummary>;
  private readonly uncommittedTx = new UncommittedTx();

  constructor(
    private readonly pool: Pool,
    private readonly caps: ClassCaps,
    health: HealthState,
    private readonly hubId: string,
    private readonly committed: (s: EventSummary) => void,
  ) {
    this.group = new GroupCommit<Pending, EventSummary>({
      commit: (batch) => this.commit(batch),
      failure: (why) => new ConsoleError('INTERNAL', `The event store could not write to PostgreSQL: ${why}`),
      health,
      coalesceMs: COALESCE_MS,
      coalesceMax: COALESCE_MAX,
      onDone: (p) => this.uncommittedTx.remove(p.row),
      // The row is new again: its seq is given at the next commit.
      onRetry: resetSeq,
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

  /** Whether a transaction_id (lower-cased) waits for its commit here. */
  hasUncommitted(txLower: string): boolean {
    return this.uncommittedTx.has(txLower);
  }

  /** Resolves once everything queued so far is committed (or failed). */
  flush(): Promise<void> {
    return this.group.flush().catch(() => undefined);
  }

  /** Before closing: what waits for a retry gets one last chance, then fails. */
  async close(): Promise<void> {
    await this.group.drain();
    this.group.close();
  }

  /** One transaction: repeats decided, seqs taken, rows inserted, classes trimmed, announced. */
  private async commit(batch: Pending[]): Promise<EventSummary[]> {
    let client: PoolClient | null = null;
    try {
      client = await this.pool.connect();
      await client.query('BEGIN');
      await this.markRepeats(client, batch);
      const seqs = await client.query<{ s: string }>(
        "SELECT nextval(pg_get_serial_sequence('events', 'seq')) AS s FROM generate_series(1, $1)",
        [batch.length],
      );
      batch.forEach((p, i) => giveSeq(p, Number(seqs.rows[i]!.s)));
      await client.query(
        INSERT_SQL,
        COLUMNS.map(([, place]) => batch.map((p) => p.row[place])),
      );
      await this.trim(client, batch);
      for (const payload of notifyPayloads(
        this.hubId,
        batch.map((p) => p.summary),
      ))
        await client.query('SELECT pg_notify($1, $2)', [PG_EVENTS_CHANNEL, payload]);
      await client.query('COMMIT');
      client.release();
    } catch (err) {
      await client?.query('ROLLBACK').catch(() => undefined);
      client?.release(true);
      throw err;
    }
    for (const p of batch) this.committed(p.summary);
    return batch.map((p) => p.summary);
  }

  /** Accepted notifications whose transaction_id is already accepted (stored or earlier here) become repeats. */
  private async markRepeats(client: PoolClient, batch: Pending[]): Promise<void> {
    const check = batch.filter((p) => p.repeatCheck && p.row[ROW.tx_lower] !== null);
    if (check.length === 0) return;
    const keys = [...new Set(check.map((p) => p.row[ROW.tx_lower]!))].sort();
    // Locks taken in one order by every hub: no deadlock between two hubs' batches.
    await client.query(
      'SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(k, 30) AS h FROM unnest($1::text[]) k ORDER BY 1) s',
      [keys],
    );
    const stored = await client.query<{ t: string }>(
      "SELECT DISTINCT tx_lower AS t FROM events WHERE tx_lower = ANY($1::text[]) AND kind = 'notification' AND outcome = 'accepted'",
      [keys],
    );
    const accepted = new Set(stored.rows.map((r) => r.t));
    for (const p of batch) {
      const tx = p.row[ROW.tx_lower];
      if (p.row[ROW.kind] !== 'notification' || p.row[ROW.outcome] !== 'accepted' || tx === null) continue;
      if (p.repeatCheck && accepted.has(tx)) markRepeat(p);
      else accepted.add(tx);
    }
  }

  /** Each capped class counted and trimmed to its cap, oldest first, within itself only. */
  private async trim(client: PoolClient, batch: Pending[]): Promise<void> {
    const added = new Map<string, number>();
    for (const p of batch) {
      const cls = p.row[ROW.cls];
      const cap = this.caps[cls];
      if (cap !== null && cap !== undefined) added.set(cls, (added.get(cls) ?? 0) + 1);
    }
    for (const [cls, n] of added) {
      const cap = this.caps[cls as keyof ClassCaps]!;
      const r = await client.query<{ n: string }>(
        `INSERT INTO event_counts (class, n) VALUES ($1, (SELECT count(*) FROM events WHERE class = $1))
         ON CONFLICT (class) DO UPDATE SET n = event_counts.n + $2 RETURNING n`,
        [cls, n],
      );
      const count = Number(r.rows[0]!.n);
      if (count <= cap) continue;
      const gone = await client.query(
        'DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE class = $1 ORDER BY seq LIMIT $2)',
        [cls, count - cap],
      );
      await client.query('UPDATE event_counts SET n = n - $2 WHERE class = $1', [cls, gone.rowCount ?? 0]);
    }
  }
}

function giveSeq(p: Pending, seq: number): void {
  p.row[ROW.seq] = seq;
  const record = p.row[ROW.record];
  if (record.startsWith(PENDING_PREFIX))
    p.row[ROW.record] = `{"id":"${formatEventId(seq)}"${record.slice(PENDING_PREFIX.length)}`;
  p.summary = { ...p.summary, id: formatEventId(seq) };
}

/** After a failed commit: the row is new again (its seq is given at the next commit). */
function resetSeq(p: Pending): void {
  const record = p.row[ROW.record];
  const id = formatEventId(p.row[ROW.seq]);
  if (p.row[ROW.seq] !== 0 && record.startsWith(`{"id":"${id}"`))
    p.row[ROW.record] = `${PENDING_PREFIX}${record.slice(`{"id":"${id}"`.length)}`;
  p.row[ROW.seq] = 0;
}

function markRepeat(p: Pending): void {
  p.row[ROW.outcome] = 'repeat';
  const whole = JSON.parse(p.row[ROW.record]) as { outcome?: string };
  whole.outcome = 'repeat';
  p.row[ROW.record] = JSON.stringify(whole);
  p.summary = { ...p.summary, outcome: 'repeat' };
}

/** The summaries as NOTIFY payloads under PostgreSQL's limit (a summary too large goes as its id). */
export function notifyPayloads(hub: string, summaries: EventSummary[]): string[] {
  const out: string[] = [];
  let events: LiveBatch['events'] = [];
  let size = 0;
  const push = () => {
    if (events.length > 0) out.push(JSON.stringify({ hub, events } satisfies LiveBatch));
    events = [];
    size = 0;
  };
  for (const s of summaries) {
    let item: LiveBatch['events'][number] = s;
    let bytes = Buffer.byteLength(JSON.stringify(s));
    if (bytes > NOTIFY_BYTES - 200) {
      item = { id: s.id };
      bytes = 30;
    }
    if (size + bytes > NOTIFY_BYTES - 100) push();
    events.push(item);
    size += bytes + 1;
  }
  push();
  return out;
}
