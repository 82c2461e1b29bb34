/**
 * Group commits to PostgreSQL (issue 30 item 4; DESIGN.md "Storage": a notification's 200 only
 * after the transaction holding it is committed, group commit allowed). What arrives while one
 * commit runs goes into the next; a durable append resolves only after COMMIT returned. Several
 * hubs write one database: ids come from the table's sequence, and a repeated transaction_id is
 * decided inside the transaction under an advisory lock per transaction_id, so two hubs taking
 * the same notification at once store one `accepted` and one `repeat`. A commit is three round
 * trips (see `commit`): the plain batched INSERT + COMMIT a bank would write by hand is two.
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { ConsoleError } from '../../contract/errors';
import type { EventSummary } from '../../contract/schemas/events';
import { UncommittedTx } from './append-row';
import { GroupCommit } from './group-commit';
import { PG_EVENT_COLUMNS } from './event-columns';
import { PG_EVENTS_CHANNEL, PG_NOTIFY_MAX_BYTES } from './pg-schema';
import { type EventRow, formatEventId, PENDING_ID, ROW } from './records';
import type { HealthState } from './store-health';
import type { ClassCaps } from './writer-protocol';

/** Non-durable appends wait at most this long for company. */
const COALESCE_MS = 20;
/** …or go at once when this many wait. */
const COALESCE_MAX = 512;
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
/** The batch's rows inserted and its NOTIFY payloads sent, in one statement (the CTE runs whether read or not). */
const INSERT_AND_NOTIFY_SQL = `WITH ins AS (INSERT INTO events (${COLUMNS.map((c) => c[0]).join(', ')}) SELECT * FROM unnest(${COLUMNS.map(
  (c, i) => `$${i + 1}::${c[2]}[]`,
).join(', ')})) SELECT pg_notify($${COLUMNS.length + 1}, p) FROM unnest($${COLUMNS.length + 2}::text[]) p`;

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
    withoutNul(row);
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

  /**
   * One transaction in three round trips (a batch of accepted notifications has no capped class
   * to trim): (1) BEGIN, the advisory locks of its transaction_ids, the stored accepted ones among
   * them and its seqs, as one simple query whose statements each take their own snapshot, so the
   * check sees what another hub committed while this one waited for a lock; (2) the rows inserted
   * and announced in one statement; (3) COMMIT.
   */
  private async commit(batch: Pending[]): Promise<EventSummary[]> {
    let client: PoolClient | null = null;
    try {
      client = await this.pool.connect();
      const seqs = await this.begin(client, batch);
      batch.forEach((p, i) => giveSeq(p, seqs[i]!));
      // Named: each connection parses and plans it once.
      await client.query({
        name: 'dets-insert-and-notify',
        text: INSERT_AND_NOTIFY_SQL,
        values: [
          ...COLUMNS.map(([, place]) => batch.map((p) => p.row[place])),
          PG_EVENTS_CHANNEL,
          notifyPayloads(
            this.hubId,
            batch.map((p) => p.summary),
          ),
        ],
      });
      await this.trim(client, batch);
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

  /**
   * Opens the transaction, decides the batch's repeats and answers its seqs, in one round trip.
   * Accepted notifications whose transaction_id is already accepted (stored, or earlier in the
   * batch) become repeats. The transaction_ids go as quoted literals (`escapeLiteral`): a simple
   * query carries no parameters, and only a simple query carries several statements.
   */
  private async begin(client: PoolClient, batch: Pending[]): Promise<number[]> {
    const check = batch.filter((p) => p.repeatCheck && p.row[ROW.tx_lower] !== null);
    const keys = [...new Set(check.map((p) => p.row[ROW.tx_lower]!))].sort();
    const nextSeqs = `SELECT nextval(pg_get_serial_sequence('events', 'seq')) AS s FROM generate_series(1, ${batch.length})`;
    if (keys.length === 0) {
      const r = (await client.query(`BEGIN; ${nextSeqs}`)) as unknown as QueryResult<{ s: string }>[];
      return r[1]!.rows.map((row) => Number(row.s));
    }
    const list = `ARRAY[${keys.map((k) => client.escapeLiteral(k)).join(', ')}]::text[]`;
    const r = (await client.query(
      [
        'BEGIN',
        // Locks taken in one order by every hub: no deadlock between two hubs' batches.
        `SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(k, 30) AS h FROM unnest(${list}) k ORDER BY 1) s`,
        `SELECT DISTINCT tx_lower AS t FROM events WHERE tx_lower = ANY(${list}) AND kind = 'notification' AND outcome = 'accepted'`,
        nextSeqs,
      ].join('; '),
    )) as unknown as QueryResult<{ t: string; s: string }>[];
    const accepted = new Set(r[2]!.rows.map((row) => row.t));
    for (const p of batch) {
      const tx = p.row[ROW.tx_lower];
      if (p.row[ROW.kind] !== 'notification' || p.row[ROW.outcome] !== 'accepted' || tx === null) continue;
      if (p.repeatCheck && accepted.has(tx)) markRepeat(p);
      else accepted.add(tx);
    }
    return r[3]!.rows.map((row) => Number(row.s));
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

/**
 * PostgreSQL's text holds no NUL character (SQLite's does): a request may carry one in a
 * transaction_id, a path or a sub, and one such row would fail its whole batch, everyone's
 * durable appends with it. Each becomes U+FFFD in the columns (the record is JSON: its NULs are
 * already escapes), before the repeat check, which then compares what is stored.
 */
function withoutNul(row: EventRow): void {
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (typeof v === 'string' && v.includes('\0')) (row as unknown[])[i] = v.replaceAll('\0', '\uFFFD');
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

/** How every payload of one hub begins (so a hub skips its own without parsing them). */
export function payloadPrefix(hub: string): string {
  return `{"hub":${JSON.stringify(hub)},"events":[`;
}

/**
 * The summaries as NOTIFY payloads, each within PostgreSQL's bound (a summary too large for one
 * alone goes as its id). Sizes are counted exactly: the prefix, a comma between summaries, `]}`.
 */
export function notifyPayloads(hub: string, summaries: EventSummary[]): string[] {
  const out: string[] = [];
  const prefix = payloadPrefix(hub);
  const empty = Buffer.byteLength(prefix) + 2;
  let parts: string[] = [];
  let size = empty;
  const push = () => {
    if (parts.length > 0) out.push(`${prefix}${parts.join(',')}]}`);
    parts = [];
    size = empty;
  };
  for (const s of summaries) {
    let json = JSON.stringify(s);
    let bytes = Buffer.byteLength(json);
    if (empty + bytes > PG_NOTIFY_MAX_BYTES) {
      json = JSON.stringify({ id: s.id } satisfies LiveBatch['events'][number]);
      bytes = json.length;
    }
    const comma = parts.length > 0 ? 1 : 0;
    if (size + comma + bytes > PG_NOTIFY_MAX_BYTES) push();
    size += (parts.length > 0 ? 1 : 0) + bytes;
    parts.push(json);
  }
  push();
  return out;
}
