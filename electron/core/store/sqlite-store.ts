/**
 * The event store on the profile database (issue 12; DESIGN.md "Storage", "Bank endpoints").
 *
 * - Writes: appends become rows in the main thread (records.ts) and go to the writer thread in
 *   group commits (commit-queue.ts; a durable append resolves only once committed with
 *   `synchronous=FULL`).
 * - Reads: a connection of the main thread; WAL lets it read the last commit while the writer
 *   writes, so a query never waits for a commit. What is appended but not yet committed is
 *   served from memory where it matters (get, hasTransaction).
 * - Faults: a failed commit rejects the durable appends in it, keeps the others for a retry and
 *   turns health() to `failing` until a real write succeeds (commit-queue.ts, store-health.ts).
 * - Damage: `PRAGMA quick_check` runs at open on its own thread (it reads every page, so the
 *   open itself stays O(1)); problems turn health() to `damaged`, naming the file; reads skip
 *   what they cannot read (reader.ts) and serve the rest. Nothing is deleted or rewritten to
 *   make a damaged profile open: `dets-console store recover` copies what is readable.
 */
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
import { CommitQueue } from './commit-queue';
import { type Database, dbFile, isCorruption, openDatabase } from './db';
import { eventStats } from './event-stats';
import { hasLegacyLog, migrateLegacyLog } from './legacy';
import { type TextTables, bySeq, countOf, newest, readRecords, snapshot, whereOf } from './reader';
import { DEFAULT_MAX_RECORD_BYTES, parseEventId } from './records';
import { SINCE_FIRST_SEQ_SQL } from './sql';
import { StatementCache } from './statement-cache';
import { HealthState, SIZE_WARNING_BYTES, sizeOf } from './store-health';
import type { AppendOptions, EventStore, EventStoreOptions, NewEvent, ScanFilter } from './types';
import { quickCheck } from './writer';
import type { ClassCaps } from './writer-protocol';

/**
 * Default caps per retention class (records.ts). Acknowledged notifications: keep every one
 * (DESIGN.md); the other classes are bounded so that a flood of any of them is bounded too.
 */
export const DEFAULT_RETENTION: ClassCaps = {
  ack: null,
  rejected: 20_000,
  callback: 300_000,
  exchange: 100_000,
  trace: 100_000,
  refused: 50_000,
  // Who changed what on a team hub (issue 30): never trimmed to make room.
  audit: null,
  // A routed request the laptop missed (issue 30 item 3): bounded, like callbacks.
  route: 20_000,
};
class SqliteEventStore implements EventStore {
  private readonly queue: CommitQueue;
  private readonly healthState: HealthState;
  private checking: Promise<string[]> | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly file: string;
  private readonly maxRecordBytes: number;
  /** Prepared statements of the reader, by SQL (preparing costs more than running them). */
  private readonly statements: StatementCache;
  private readonly textTables: TextTables;

  constructor(
    private readonly db: Database,
    private readonly options: EventStoreOptions,
  ) {
    this.file = dbFile(options.dataDir);
    const caps: ClassCaps = { ...DEFAULT_RETENTION, ...options.retention };
    this.maxRecordBytes = Math.max(4096, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES);
    this.statements = new StatementCache(db, 200);
    const limit = options.sizeWarningBytes ?? SIZE_WARNING_BYTES;
    const hub = options.events;
    this.healthState = new HealthState(this.file, hub, options.log ?? ((line) => console.error(line)), () =>
      sizeOf(this.statements, this.file, limit),
    );
    this.queue = new CommitQueue(this.file, caps, this.healthState, (summary) => {
      try {
        hub.emit('events.appended', summary);
      } catch {
        // A summary the contract refuses (a producer's odd field) is still stored.
      }
    });
    // A read-only opener of a database an older console wrote (schema before version 5, 6 or
    // 10, db.ts) migrates nothing: its text is all in the index, or in the tables it has; its
    // callbacks' environment is in their records only.
    const has = (table: string) =>
      db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
      undefined;
    const hasEnvironment =
      db.prepare("SELECT 1 AS x FROM pragma_table_info('events') WHERE name = 'environment'").get() !==
      undefined;
    this.textTables = {
      pending: has('events_fts_pending'),
      plain: has('events_text'),
      environment: hasEnvironment,
    };
  }

  /** The one-time migration of an old segment-log profile, through the writer (legacy.ts). */
  async migrateLegacy(): Promise<void> {
    if (!hasLegacyLog(this.options.dataDir)) return;
    // Without a listener, a large history reports its progress in the log, a line per tenth.
    let tenth = 0;
    const log = this.options.log ?? ((line: string) => console.error(line));
    const onProgress =
      this.options.onMigrationProgress ??
      ((p: { events: number; bytesDone: number; bytesTotal: number }) => {
        const now = p.bytesTotal > 0 ? Math.floor((10 * p.bytesDone) / p.bytesTotal) : 10;
        if (now <= tenth || p.bytesTotal < 16 * 1024 ** 2) return;
        tenth = now;
        log(`event store: migrating the old event log: ${now * 10}% (${p.events} events)`);
      });
    await migrateLegacyLog(this.db, this.queue.writerNow(), this.options.dataDir, { onProgress, log });
  }

  private get readOnly(): boolean {
    return this.options.readOnly === true;
  }

  // ------------------------------------------------------------------------------- health

  health(): StoreHealth {
    return this.healthState.snapshot();
  }

  integrity(): Promise<string[]> {
    this.checking ??= quickCheck(this.file).then(
      (problems) => {
        if (problems.length > 0)
          this.healthState.set('damaged', `quick_check: ${problems.slice(0, 3).join('; ')}`);
        return problems;
      },
      (err: unknown) => [err instanceof Error ? err.message : String(err)],
    );
    return this.checking;
  }

  /** A read that meets damage reports it and answers STATE_DAMAGED naming the file. */
  private reading<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (isCorruption(err)) {
        const why = err instanceof Error ? err.message : String(err);
        this.healthState.set('damaged', why);
        throw new ConsoleError(
          'STATE_DAMAGED',
          `The database ${this.file} is damaged (${why}); \`dets-console store recover\` copies what is readable into a fresh database.`,
          { file: this.file },
        );
      }
      throw err;
    }
  }

  // ------------------------------------------------------------------------------- writes

  append(event: NewEvent, options?: AppendOptions): Promise<EventSummary> {
    const refusal = this.readOnly
      ? 'The event store is open read-only.'
      : this.closed
        ? 'The event store is closed; the event was not stored.'
        : null;
    const limits = { maxRecordBytes: this.maxRecordBytes, now: this.options.now };
    return appendThrough(refusal, event, options, limits, ({ row, summary, durable, repeatCheck }) =>
      this.queue.add(row, summary, { durable, repeatCheck }),
    );
  }

  flush(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    return this.queue.flush();
  }

  // -------------------------------------------------------------------------------- reads

  hasTransaction(transactionId: string): boolean {
    const key = transactionId.toLowerCase();
    if (this.queue.hasUncommitted(key)) return true;
    try {
      return (
        this.statements.get('SELECT 1 AS x FROM events WHERE tx_lower = ? LIMIT 1').get(key) !== undefined
      );
    } catch {
      return false;
    }
  }

  query(q: EventQuery): Promise<{ events: EventSummary[]; total: number }> {
    return Promise.resolve().then(() =>
      this.reading(() => {
        // The contract caps a page at 10,000; exports (export.ts) ask for up to 100,000.
        const limit = Math.max(1, q.limit ?? 100);
        const where = whereOf(q, this.textTables);
        let before: number | undefined;
        if (q.before !== undefined) {
          const seq = parseEventId(q.before);
          if (seq === null) throw badArgument(`before: ${q.before} is not an event id`, 'before');
          before = seq;
        }
        return snapshot(this.db, () => {
          const rows = newest(
            this.db,
            where,
            SUMMARY_COLUMNS,
            limit,
            before === undefined ? undefined : { op: '<', seq: before },
          );
          return { events: rows.map(summaryOfRow), total: countOf(this.db, where) };
        });
      }),
    );
  }

  stats(q: EventStatsQuery): Promise<EventStats> {
    return Promise.resolve().then(() =>
      this.reading(() => eventStats(this.db, this.statements, this.textTables, q)),
    );
  }

  async get(id: string): Promise<EventDetail> {
    const seq = parseEventId(id);
    if (seq === null) throw new ConsoleError('NOT_FOUND', `No event ${id}`);
    const row = this.reading(() => this.statements.get('SELECT record FROM events WHERE seq = ?').get(seq));
    if (!row) throw new ConsoleError('NOT_FOUND', `No event ${id}`);
    return JSON.parse(String(row.record)) as EventDetail;
  }

  async *scan(filter: ScanFilter = {}): AsyncIterable<EventDetail> {
    // Everything appended so far must be committed before reading.
    await this.flush();
    let after = filter.afterId === undefined ? 0 : (parseEventId(filter.afterId) ?? 0);
    let where = whereOf(filter, this.textTables);
    let upTo: number | undefined;
    if (filter.last !== undefined && where.sources.some((s) => s.from !== 'events')) {
      // The newest N matches of a search: the index reads them newest first and stops, whereas
      // seeking it forward from a rowid walks its lists (reader.ts Where.sources); their rows
      // are then read by seq, oldest first, as any scan reads.
      const seqs = this.reading(() =>
        snapshot(this.db, () =>
          newest(this.db, where, 'seq', Math.max(1, filter.last!), { op: '>', seq: after }),
        ),
      ).map((r) => Number(r.seq));
      if (seqs.length === 0) return;
      where = bySeq(seqs);
      after = seqs[seqs.length - 1]! - 1;
      upTo = seqs[0]!;
    } else if (filter.last !== undefined) {
      // The newest N: start just before the Nth newest match (one indexed query).
      const nth = this.reading(() =>
        this.db
          .prepare(`SELECT seq FROM events WHERE ${where.sql} AND seq > ? ORDER BY seq DESC LIMIT 1 OFFSET ?`)
          .get(...where.params, after, Math.max(0, filter.last! - 1)),
      );
      if (nth) after = Number(nth.seq) - 1;
    }
    if (filter.since !== undefined && upTo === undefined) {
      // A time window's rows start at its lowest seq (the at_ms index gives it): the chunks walk
      // from there, not from the start of the table past every older row (sql.ts
      // SINCE_FIRST_SEQ_SQL; docs/benchmarks.md, "Figures moved from code comments").
      const first = this.reading(() =>
        this.db.prepare(SINCE_FIRST_SEQ_SQL).get(Date.parse(filter.since!)),
      ) as { s: unknown } | undefined;
      if (first?.s === null || first?.s === undefined) return;
      after = Math.max(after, Number(first.s) - 1);
    }
    yield* readRecords(this.db, {
      after,
      where,
      ...(upTo !== undefined ? { upTo } : {}),
      onDamage: (why) => this.healthState.set('damaged', why),
    });
  }

  // ------------------------------------------------------------------------------ lifecycle

  close(): Promise<void> {
    this.closing ??= (async () => {
      // What waits for a retry gets one last chance, then fails (a read-only store has none).
      if (!this.readOnly) await this.queue.drain();
      this.closed = true;
      await this.queue.close();
      await this.checking?.catch(() => undefined);
      this.db.close();
    })();
    return this.closing;
  }
}

/**
 * Opens the event store of `<dataDir>/console.db`, creating and migrating it if need be; an
 * old segment-log profile (`<dataDir>/events/`) is migrated into it first, once (legacy.ts).
 */
export async function openEventStore(options: EventStoreOptions): Promise<EventStore> {
  const readOnly = options.readOnly === true;
  if (readOnly && hasLegacyLog(options.dataDir) && !(await dbExists(options.dataDir))) {
    // An old profile nobody has opened since the upgrade: the migration is the writer's job,
    // done once; do it, then read as asked.
    await (await openEventStore({ ...options, readOnly: false })).close();
  }
  if (readOnly && !(await dbExists(options.dataDir))) return emptyStore(options);
  const db = openDatabase(options.dataDir, { readOnly });
  const store = new SqliteEventStore(db, options);
  if (!readOnly) {
    try {
      await store.migrateLegacy();
    } catch (err) {
      await store.close();
      throw err;
    }
    void store.integrity();
  }
  return store;
}

async function dbExists(dataDir: string): Promise<boolean> {
  const { stat } = await import('node:fs/promises');
  return stat(dbFile(dataDir)).then(
    (s) => s.isFile() && s.size > 0,
    () => false,
  );
}

/** A read-only store of a profile without a database: nothing stored, nothing created. */
function emptyStore(options: EventStoreOptions): EventStore {
  const file = dbFile(options.dataDir);
  const since = new Date().toISOString();
  return {
    append: () => Promise.reject(new ConsoleError('INTERNAL', 'The event store is open read-only.')),
    query: () => Promise.resolve({ events: [], total: 0 }),
    stats: () => Promise.resolve({ total: 0, groups: [], rate: null }),
    get: (id) => Promise.reject(new ConsoleError('NOT_FOUND', `No event ${id}`)),
    // eslint-disable-next-line require-yield
    scan: async function* () {
      return;
    },
    hasTransaction: () => false,
    flush: () => Promise.resolve(),
    health: () => ({ state: 'ok', file, since, detail: null }),
    integrity: () => Promise.resolve([]),
    close: () => Promise.resolve(),
  };
}
