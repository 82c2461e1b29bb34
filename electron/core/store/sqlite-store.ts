/**
 * The event store on the profile database (issue 12; DESIGN.md "Storage", "Bank endpoints").
 *
 * - Writes: appends become rows in the main thread (records.ts) and are committed by the
 *   writer worker (writer.ts) in group commits: while one commit runs, what arrives queues, and
 *   the next commit takes the whole queue (an eager group commit). A durable append (a
 *   notification) resolves only after its commit returned, with `synchronous=FULL`; other
 *   appends wait up to COALESCE_MS for company.
 * - Reads: a connection of the main thread; WAL lets it read the last commit while the writer
 *   writes, so a query never waits for a commit. What is appended but not yet committed is
 *   served from memory where it matters (get, hasTransaction).
 * - Faults: a failed commit (disk full, I/O error) rejects the durable appends in it (the bank
 *   answers 500, nothing is acknowledged), keeps the others for a retry, logs one line, and
 *   turns health() to `failing`; what waits is retried every RETRY_MS, and the first commit of
 *   real rows that succeeds logs the recovery and turns health() back to `ok` (never a probe:
 *   scheduleRetry). No restart, no permanent failure flag.
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
import type { EventHub } from '../event-hub';
import { type Database, type Statement, dbFile, isCorruption, openDatabase } from './db';
import { hasLegacyLog, migrateLegacyLog } from './legacy';
import {
  type TextTables,
  type Where,
  bySeq,
  countOf,
  newest,
  readRecords,
  snapshot,
  whereOf,
} from './reader';
import {
  DEFAULT_MAX_RECORD_BYTES,
  EVENT_KINDS,
  type EventRow,
  formatEventId,
  PENDING_ID,
  parseEventId,
  ROW,
  toRow,
} from './records';
import type { AppendOptions, EventStore, EventStoreOptions, NewEvent, ScanFilter } from './types';
import { type ClassCaps, type Reply, WriterClient, quickCheck } from './writer';

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
};
/** health() warns past this size (DESIGN.md "Storage": a warning as the database grows). */
export const SIZE_WARNING_BYTES = 1024 ** 3;
/** Non-durable appends wait at most this long for company before they are committed. */
const COALESCE_MS = 20;
/** …or go at once when this many are waiting. */
const COALESCE_MAX = 512;
/** While writes fail, a retry (or a probe commit) this often. */
const RETRY_MS = 1000;
/** Non-durable events kept for a retry while writes fail; older ones are given up (and counted). */
const RETRY_MAX = 10_000;

interface Pending {
  /** null: a flush marker. */
  row: EventRow | null;
  summary: EventSummary | null;
  durable: boolean;
  /** AppendOptions.repeatCheck: the writer decides accepted or repeat (writer.ts commit). */
  repeatCheck: boolean;
  resolve: (s: EventSummary) => void;
  reject: (err: unknown) => void;
}

/**
 * The lowest seq of the events at or after a time (`since`): where a scan of the window starts.
 * `seq + 0`: a bare min(seq) makes SQLite walk the table in seq order until a row is in the
 * window (150 ms at a million for a recent one); this reads the at_ms index's range instead.
 */
export const SINCE_FIRST_SEQ_SQL = 'SELECT min(seq + 0) AS s FROM events WHERE at_ms >= ?';

const SUMMARY_COLUMNS =
  'seq, at, kind, path, method, status, outcome, transaction_id, failed_check, obj, sub, duration_ms, warning, remote';

function summaryOfRow(r: Record<string, unknown>): EventSummary {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: formatEventId(Number(r.seq)),
    at: String(r.at),
    kind: r.kind as EventSummary['kind'],
    path: text(r.path),
    method: text(r.method),
    status: num(r.status),
    outcome: text(r.outcome) as EventSummary['outcome'],
    transaction_id: text(r.transaction_id),
    failed_check: text(r.failed_check),
    obj: text(r.obj),
    sub: text(r.sub),
    duration_ms: num(r.duration_ms),
    warning: text(r.warning),
    remote: text(r.remote),
  };
}

class SqliteEventStore implements EventStore {
  private writer: WriterClient | null = null;
  private queue: Pending[] = [];
  private retry: Pending[] = [];
  private inFlight = false;
  private coalesceTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Lower-cased transaction_ids appended but not yet committed, for hasTransaction(). */
  private readonly uncommittedTx = new Map<string, number>();
  private state: StoreHealth;
  private checking: Promise<string[]> | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly file: string;
  private readonly caps: ClassCaps;
  private readonly maxRecordBytes: number;
  private readonly hub: EventHub;
  private readonly log: (line: string) => void;
  /** Prepared statements of the reader, by SQL (preparing costs more than running them). */
  private readonly statements = new Map<string, Statement>();
  private readonly textTables: TextTables;

  constructor(
    private readonly db: Database,
    private readonly options: EventStoreOptions,
  ) {
    this.file = dbFile(options.dataDir);
    this.caps = { ...DEFAULT_RETENTION, ...options.retention };
    this.maxRecordBytes = Math.max(4096, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES);
    this.hub = options.events;
    this.log = options.log ?? ((line) => console.error(line));
    this.state = { state: 'ok', file: this.file, since: new Date().toISOString(), detail: null };
    // A read-only opener of a database an older console wrote (schema before version 5 or 6,
    // db.ts) migrates nothing: its text is all in the index, or in the tables it has.
    const has = (table: string) =>
      db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
      undefined;
    this.textTables = { pending: has('events_fts_pending'), plain: has('events_text') };
  }

  private sql(text: string): Statement {
    let st = this.statements.get(text);
    if (!st) {
      st = this.db.prepare(text);
      if (this.statements.size > 200) this.statements.clear();
      this.statements.set(text, st);
    }
    return st;
  }

  /** The one-time migration of an old segment-log profile, through the writer (legacy.ts). */
  async migrateLegacy(): Promise<void> {
    if (!hasLegacyLog(this.options.dataDir)) return;
    // Without a listener, a large history reports its progress in the log, a line per tenth.
    let tenth = 0;
    const onProgress =
      this.options.onMigrationProgress ??
      ((p: { events: number; bytesDone: number; bytesTotal: number }) => {
        const now = p.bytesTotal > 0 ? Math.floor((10 * p.bytesDone) / p.bytesTotal) : 10;
        if (now <= tenth || p.bytesTotal < 16 * 1024 ** 2) return;
        tenth = now;
        this.log(`event store: migrating the old event log: ${now * 10}% (${p.events} events)`);
      });
    await migrateLegacyLog(this.db, this.writerNow(), this.options.dataDir, { onProgress, log: this.log });
  }

  private get readOnly(): boolean {
    return this.options.readOnly === true;
  }

  // ------------------------------------------------------------------------------- health

  health(): StoreHealth {
    return { ...this.state, ...this.size() };
  }

  /** The file's size from its page count (O(1)), and the warning past sizeWarningBytes. */
  private size(): Pick<StoreHealth, 'size_bytes' | 'size_warning'> {
    try {
      const count = Number(this.sql('PRAGMA page_count').get()?.page_count ?? 0);
      const page = Number(this.sql('PRAGMA page_size').get()?.page_size ?? 0);
      const bytes = count * page;
      const limit = this.options.sizeWarningBytes ?? SIZE_WARNING_BYTES;
      const gib = (n: number) => `${(n / 1024 ** 3).toFixed(n < 1024 ** 3 ? 3 : 1)} GiB`;
      return {
        size_bytes: bytes,
        size_warning:
          bytes > limit
            ? `The database ${this.file} is ${gib(bytes)}, past ${gib(limit)}: acknowledged notifications are all kept unless you set their retention (Notifications page; default: keep), so it only grows; export what you need (events export) and keep an eye on the disk.`
            : null,
      };
    } catch {
      return {};
    }
  }

  private setHealth(state: StoreHealth['state'], detail: string | null): void {
    const was = this.state.state;
    if (was === state && (state === 'ok' || this.state.detail === detail)) return;
    if (was === 'damaged' && state === 'ok') return; // damage is not healed by a commit
    this.state = { state, file: this.file, since: new Date().toISOString(), detail };
    if (state === 'failing') this.log(`event store: writing to ${this.file} failed: ${detail}`);
    else if (state === 'damaged')
      this.log(
        `event store: ${this.file} is damaged: ${detail}. What is readable is still served; to move it into a fresh database, stop the console and run \`dets-console store recover\` (the damaged file is kept beside it).`,
      );
    else this.log(`event store: writing to ${this.file} works again`);
    try {
      this.hub.emit('store.changed', this.health());
    } catch {
      // a listener's failure never breaks the store
    }
  }

  integrity(): Promise<string[]> {
    this.checking ??= quickCheck(this.file).then(
      (problems) => {
        if (problems.length > 0) this.setHealth('damaged', `quick_check: ${problems.slice(0, 3).join('; ')}`);
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
        this.setHealth('damaged', why);
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
    if (this.readOnly)
      return Promise.reject(new ConsoleError('INTERNAL', 'The event store is open read-only.'));
    if (this.closed)
      return Promise.reject(
        new ConsoleError('INTERNAL', 'The event store is closed; the event was not stored.'),
      );
    if (!EVENT_KINDS.includes(event.kind))
      return Promise.reject(badArgument(`kind: ${String(event.kind)} is not an event kind`, 'kind'));
    const at =
      typeof event.at === 'string' && !Number.isNaN(Date.parse(event.at))
        ? event.at
        : new Date(this.options.now?.() ?? Date.now()).toISOString();
    const record = { id: '', ...event, at } as EventDetail;
    // The first key, and never a producer's: the writer gives the id at commit (writer.ts), so
    // two processes writing to one profile (serve beside the desktop app) never collide.
    record.id = PENDING_ID;
    let built: ReturnType<typeof toRow>;
    try {
      built = toRow(record, 0, this.maxRecordBytes);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return Promise.reject(badArgument(`The event cannot be stored as JSON: ${why}`, 'event'));
    }
    const { row, summary } = built;
    const tx = row[ROW.tx_lower];
    if (tx !== null) this.uncommittedTx.set(tx, (this.uncommittedTx.get(tx) ?? 0) + 1);
    const durable = options?.durable === true;
    const repeatCheck =
      options?.repeatCheck === true &&
      event.kind === 'notification' &&
      event.outcome === 'accepted' &&
      tx !== null;
    return new Promise<EventSummary>((resolve, reject) => {
      this.queue.push({ row, summary, durable, repeatCheck, resolve, reject });
      if (durable || this.queue.length >= COALESCE_MAX) this.pump();
      else this.pumpSoon();
    });
  }

  flush(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
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

  private pumpSoon(): void {
    if (this.coalesceTimer || this.inFlight) return;
    this.coalesceTimer = setTimeout(() => {
      this.coalesceTimer = null;
      this.pump();
    }, COALESCE_MS);
  }

  private writerNow(): WriterClient {
    if (!this.writer?.alive) this.writer = new WriterClient(this.file, this.caps);
    return this.writer;
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
        ? Promise.resolve({ ok: true, firstSeq: 0 } as Reply)
        : this.writerNow().request({ type: 'commit', rows, durable, ...(check.length ? { check } : {}) });
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
    if (!p.row) return;
    const tx = p.row[ROW.tx_lower];
    if (tx !== null) {
      const n = (this.uncommittedTx.get(tx) ?? 1) - 1;
      if (n <= 0) this.uncommittedTx.delete(tx);
      else this.uncommittedTx.set(tx, n);
    }
  }

  /**
   * Resolves a committed batch; its rows got the ids from `firstSeq` on, in order, and those at
   * the places `repeats` (of the batch's rows) were stored as repeats.
   */
  private settle(batch: Pending[], firstSeq: number, repeats: number[]): void {
    if (batch.some((p) => p.row)) this.setHealth('ok', null);
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
      try {
        this.hub.emit('events.appended', p.summary);
      } catch {
        // A summary the contract refuses (a producer's odd field) is still stored.
      }
    }
  }

  private failBatch(batch: Pending[], why: string): void {
    this.setHealth('failing', why);
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
      if (this.state.state !== 'failing' || this.closed || this.retry.length === 0) return;
      this.queue = [...this.retry, ...this.queue];
      this.retry = [];
      this.pump();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  // -------------------------------------------------------------------------------- reads

  hasTransaction(transactionId: string): boolean {
    const key = transactionId.toLowerCase();
    if (this.uncommittedTx.has(key)) return true;
    try {
      return this.sql('SELECT 1 AS x FROM events WHERE tx_lower = ? LIMIT 1').get(key) !== undefined;
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

  /**
   * Counts grouped by `group` (an SQL expression of the row, never text from outside) over the
   * sources of `where`, summed across them: [{ v, n }], by `order`.
   */
  private grouped(
    where: Where,
    group: string,
    extra: { sql: string; params: unknown[] },
    order: string,
    lead: unknown[] = [],
  ): Record<string, unknown>[] {
    const arms = where.sources.map(
      (s) => `SELECT ${group} AS v, count(*) AS n FROM ${s.from} WHERE ${s.sql}${extra.sql} GROUP BY v`,
    );
    const params = where.sources.flatMap((s) => [...lead, ...s.params, ...extra.params]);
    const sql =
      arms.length === 1
        ? `${arms[0]!} ORDER BY ${order}`
        : `SELECT v, sum(n) AS n FROM (${arms.join(' UNION ALL ')}) GROUP BY v ORDER BY ${order}`;
    return this.sql(sql).all(...params);
  }

  stats(q: EventStatsQuery): Promise<EventStats> {
    return Promise.resolve().then(() =>
      this.reading(() =>
        snapshot(this.db, () => {
          const where = whereOf(q.query ?? {}, this.textTables);
          const total = countOf(this.db, where);
          // `by` is one of the contract's column names (an enum), never text from outside.
          const groups = q.by
            ? this.grouped(where, q.by, { sql: '', params: [] }, 'n DESC, v').map((r) => ({
                value: r.v === null ? null : String(r.v),
                count: Number(r.n),
              }))
            : [];
          let rate: EventStats['rate'] = null;
          if (q.rate) {
            const { bucket_ms: size, buckets } = q.rate;
            // Whole clock-aligned buckets, the last ending where the current (partial) one starts.
            const until = q.rate.until !== undefined ? Date.parse(q.rate.until) : Date.now();
            const end = Math.floor(until / size) * size;
            const start = end - size * buckets;
            const counts = new Array<number>(buckets).fill(0);
            // Bound numbers arrive as REAL, so the division is cast back to a bucket index.
            const rows = this.grouped(
              where,
              'CAST((at_ms - ?) / ? AS INTEGER)',
              { sql: ' AND at_ms >= ? AND at_ms < ?', params: [start, end] },
              'v',
              [start, size],
            );
            for (const r of rows) {
              const i = Number(r.v);
              if (i >= 0 && i < buckets) counts[i] = Number(r.n);
            }
            rate = { start: new Date(start).toISOString(), bucket_ms: size, counts };
          }
          return { total, groups, rate };
        }),
      ),
    );
  }

  async get(id: string): Promise<EventDetail> {
    const seq = parseEventId(id);
    if (seq === null) throw new ConsoleError('NOT_FOUND', `No event ${id}`);
    const row = this.reading(() => this.sql('SELECT record FROM events WHERE seq = ?').get(seq));
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
      // The newest N matches of a search: the index reads them newest first and stops (a few
      // ms at a million), whereas seeking it forward from a rowid walks its lists (reader.ts
      // Where.sources); their rows are then read by seq, oldest first, as any scan reads.
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
      // from there, not from the start of the table past every older row (\`events --since 10m\`
      // at a million events: 1.6 s, most of it that walk, before this).
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
      onDamage: (why) => this.setHealth('damaged', why),
    });
  }

  // ------------------------------------------------------------------------------ lifecycle

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      if (!this.readOnly) {
        // What waits for a retry gets one last chance, then fails.
        this.queue = [...this.retry, ...this.queue];
        this.retry = [];
        await this.flush().catch(() => undefined);
      }
      this.closed = true;
      await this.writer?.close();
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
