/**
 * The event store on PostgreSQL, for the team hub (issue 30 item 4; DESIGN.md "Team hub":
 * `--store postgres://…`, the same semantics as the profile's SQLite, so several hubs serve one
 * registered URL). The same EventStore interface (types.ts) and the same rows (records.ts):
 *
 * - Writes: group commits (pg-commit.ts); a durable append resolves only after COMMIT returned.
 * - Reads: a pool of connections; a page and its total come from one snapshot.
 * - Live pages across hubs: each commit NOTIFYs the summaries on one channel; every hub LISTENs
 *   and emits the other hubs' events as its own `events.appended` (pg-live.ts).
 * - Search: the lower-cased search text under a `pg_trgm` GIN index (pg-where.ts).
 * - Retention: per class, as in SQLite (event_counts; acknowledged notifications kept).
 *
 * Threat model: the connection string is the operator's (a flag); it may carry a password, which
 * never appears in health(), logs or errors (redactUrl).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { badArgument, ConsoleError } from '../../contract/errors';
import type {
  EventDetail,
  EventQuery,
  EventStats,
  EventStatsQuery,
  EventSummary,
  StoreHealth,
} from '../../contract/schemas/events';
import { appendThrough, SUMMARY_COLUMNS, summaryOfRow } from './append-row';
import { PgCommitQueue } from './pg-commit';
import { PgLive } from './pg-live';
import { migratePg } from './pg-schema';
import { pgWhereOf, type PgWhere } from './pg-where';
import { DEFAULT_MAX_RECORD_BYTES, parseEventId, parseRecord, ROW } from './records';
import { DEFAULT_RETENTION } from './sqlite-store';
import { HealthState } from './store-health';
import type { AppendOptions, EventStore, EventStoreOptions, NewEvent, ScanFilter } from './types';
import type { ClassCaps } from './writer-protocol';

/** Rows a scan reads per round trip. */
const SCAN_CHUNK = 500;

/** Whether a `--store` value names PostgreSQL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The URL with its password replaced, for health(), logs and errors. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Where, with `extra` conditions appended (their parameters numbered after where's). */
function withExtra(where: PgWhere, extra: ((p: (v: unknown) => string) => string)[]): PgWhere {
  const params = [...where.params];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const conds = [where.sql, ...extra.map((e) => e(p))];
  return { sql: conds.join(' AND '), params };
}

class PgEventStore implements EventStore {
  private readonly queue: PgCommitQueue;
  private readonly healthState: HealthState;
  private readonly live: PgLive;
  private readonly maxRecordBytes: number;
  private readonly hubId = randomUUID();
  /** transaction_ids (lower-cased) this hub stored or saw announced: hasTransaction's answer. */
  private readonly seenTx = new Set<string>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: EventStoreOptions,
  ) {
    const caps: ClassCaps = { ...DEFAULT_RETENTION, ...options.retention };
    this.maxRecordBytes = Math.max(4096, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES);
    const hub = options.events;
    const emit = (s: EventSummary) => {
      if (s.transaction_id !== null && this.seenTx.size < 1_000_000)
        this.seenTx.add(s.transaction_id.toLowerCase());
      try {
        hub.emit('events.appended', s);
      } catch {
        // A summary the contract refuses is still stored.
      }
    };
    this.healthState = new HealthState(
      redactUrl(url),
      hub,
      options.log ?? ((l) => console.error(l)),
      () => ({}),
    );
    this.queue = new PgCommitQueue(pool, caps, this.healthState, this.hubId, emit);
    this.live = new PgLive(url, this.hubId, (id) => this.get(id).then((d) => d), emit, options.log);
  }

  async start(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await migratePg(client);
    } finally {
      client.release();
    }
    await this.live.start();
  }

  append(event: NewEvent, options?: AppendOptions): Promise<EventSummary> {
    const refusal = this.closing ? 'The event store is closed; the event was not stored.' : null;
    const limits = { maxRecordBytes: this.maxRecordBytes, now: this.options.now };
    return appendThrough(refusal, event, options, limits, ({ row, summary, durable, repeatCheck }) => {
      // The search column is compared lower-cased (pg-where.ts).
      row[ROW.search] = row[ROW.search].toLowerCase();
      return this.queue.add(row, summary, { durable, repeatCheck });
    });
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  hasTransaction(transactionId: string): boolean {
    const key = transactionId.toLowerCase();
    return this.queue.hasUncommitted(key) || this.seenTx.has(key);
  }

  /** A read in one snapshot (REPEATABLE READ), so a page and its total agree. */
  private async snapshot<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  async query(q: EventQuery): Promise<{ events: EventSummary[]; total: number }> {
    const limit = Math.max(1, q.limit ?? 100);
    let before: number | undefined;
    if (q.before !== undefined) {
      const seq = parseEventId(q.before);
      if (seq === null) throw badArgument(`before: ${q.before} is not an event id`, 'before');
      before = seq;
    }
    const where = pgWhereOf(q);
    const page = withExtra(where, before === undefined ? [] : [(p) => `seq < ${p(before)}`]);
    return this.snapshot(async (c) => {
      const rows = await c.query(
        `SELECT ${SUMMARY_COLUMNS} FROM events WHERE ${page.sql} ORDER BY seq DESC LIMIT ${limit}`,
        page.params,
      );
      const n = await c.query<{ n: string }>(
        `SELECT count(*) AS n FROM events WHERE ${where.sql}`,
        where.params,
      );
      return { events: rows.rows.map(summaryOfRow), total: Number(n.rows[0]!.n) };
    });
  }

  async stats(q: EventStatsQuery): Promise<EventStats> {
    const where = pgWhereOf(q.query ?? {});
    return this.snapshot(async (c) => {
      const total = Number(
        (await c.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE ${where.sql}`, where.params))
          .rows[0]!.n,
      );
      // `by` is one of the contract's column names (an enum), never text from outside.
      const groups = q.by
        ? (
            await c.query<{ v: string | null; n: string }>(
              `SELECT ${q.by} AS v, count(*) AS n FROM events WHERE ${where.sql} GROUP BY v ORDER BY n DESC, v`,
              where.params,
            )
          ).rows.map((r) => ({ value: r.v, count: Number(r.n) }))
        : [];
      let rate: EventStats['rate'] = null;
      if (q.rate) {
        const { bucket_ms: size, buckets } = q.rate;
        const until = q.rate.until !== undefined ? Date.parse(q.rate.until) : Date.now();
        const end = Math.floor(until / size) * size;
        const start = end - size * buckets;
        const w = withExtra(where, [(p) => `at_ms >= ${p(start)}`, (p) => `at_ms < ${p(end)}`]);
        const n = w.params.length;
        const rows = await c.query<{ v: string; n: string }>(
          `SELECT floor((at_ms - $${n + 1}::bigint) / $${n + 2}::bigint) AS v, count(*) AS n FROM events WHERE ${w.sql} GROUP BY v`,
          [...w.params, start, size],
        );
        const counts = new Array<number>(buckets).fill(0);
        for (const r of rows.rows) {
          const i = Number(r.v);
          if (i >= 0 && i < buckets) counts[i] = Number(r.n);
        }
        rate = { start: new Date(start).toISOString(), bucket_ms: size, counts };
      }
      return { total, groups, rate };
    });
  }

  async get(id: string): Promise<EventDetail> {
    const seq = parseEventId(id);
    if (seq === null) throw new ConsoleError('NOT_FOUND', `No event ${id}`);
    const r = await this.pool.query<{ record: string }>('SELECT record FROM events WHERE seq = $1', [seq]);
    const record = r.rows[0] ? parseRecord(r.rows[0].record) : null;
    if (!record) throw new ConsoleError('NOT_FOUND', `No event ${id}`);
    return record;
  }

  async *scan(filter: ScanFilter = {}): AsyncIterable<EventDetail> {
    await this.flush();
    let after = filter.afterId === undefined ? 0 : (parseEventId(filter.afterId) ?? 0);
    const where = pgWhereOf({
      kind: filter.kind,
      since: filter.since,
      text: filter.text,
      environment: filter.environment,
    });
    if (filter.last !== undefined) {
      // The newest N: start just before the Nth newest match.
      const w = withExtra(where, [(p) => `seq > ${p(after)}`]);
      const nth = await this.pool.query<{ seq: string }>(
        `SELECT seq FROM events WHERE ${w.sql} ORDER BY seq DESC LIMIT 1 OFFSET ${Math.max(0, filter.last - 1)}`,
        w.params,
      );
      if (nth.rows[0]) after = Number(nth.rows[0].seq) - 1;
    }
    for (;;) {
      const w = withExtra(where, [(p) => `seq > ${p(after)}`]);
      const rows = await this.pool.query<{ seq: string; record: string }>(
        `SELECT seq, record FROM events WHERE ${w.sql} ORDER BY seq LIMIT ${SCAN_CHUNK}`,
        w.params,
      );
      for (const r of rows.rows) {
        after = Number(r.seq);
        const record = parseRecord(r.record);
        if (record) yield record;
      }
      if (rows.rows.length < SCAN_CHUNK) return;
    }
  }

  health(): StoreHealth {
    return this.healthState.snapshot();
  }

  integrity(): Promise<string[]> {
    // PostgreSQL checks its own pages; a damaged relation fails the query that reads it.
    return Promise.resolve([]);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.queue.close();
      await this.live.stop();
      await this.pool.end();
    })();
    return this.closing;
  }
}

/**
 * Opens the event store in the PostgreSQL database at `url`, creating or upgrading its schema.
 * Rejects with a message naming the (redacted) URL when the database cannot be reached.
 *
 * @example
 * const store = await openPgEventStore('postgres://hub@db.internal/dets', { dataDir, events });
 */
export async function openPgEventStore(url: string, options: EventStoreOptions): Promise<EventStore> {
  const pool = new pg.Pool({ connectionString: url, max: 6, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined); // an idle connection lost: the next query opens another
  const store = new PgEventStore(pool, url, options);
  try {
    await store.start();
  } catch (err) {
    await pool.end().catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    throw new ConsoleError('INTERNAL', `The PostgreSQL store ${redactUrl(url)} cannot be opened: ${why}`);
  }
  return store;
}
