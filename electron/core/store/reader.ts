/**
 * Reading events back (issue 12): the one translation of a filter into SQL (query(), scan(),
 * `events` and its flags all go through whereOf), and a reader that walks records oldest first
 * and steps over what it cannot read, so a damaged page costs the rows on it and no more (used by
 * scan() and by `store recover`).
 */
import type { EventDetail, EventQuery } from '../../contract/schemas/events';
import { type Database, type Statement, isCorruption } from './db';
import { HIGH_SEQ_SQL } from './sql';
import { badArgument } from '../../contract/errors';
import { UNINDEXED_KINDS, parseEventId, parseRecord } from './records';

export interface Where {
  /** The condition on `events` alone (a walk over all matches: readRecords). */
  sql: string;
  params: unknown[];
  /**
   * Disjoint sets of rows whose union is the matches, each pageable on its own: `events`
   * itself, or for a full-text search the index's matches and the text not yet indexed
   * (sql.ts version 5). A newest-first page of a search reads its LIMIT from each and merges, so
   * it stops early instead of materializing every match (a text most events carry matches
   * hundreds of thousands of rows at a million).
   */
  sources: Source[];
}

export interface Source {
  /** The FROM clause: `events`, or the rows joined to the index's matches (the index first). */
  from: string;
  /** The column rows are ordered and paged by (`seq`, or the index's rowid: the same value). */
  key: string;
  sql: string;
  params: unknown[];
  /** The exact count of this source's rows: `SELECT count(*) AS n …`, and its parameters. */
  count: string;
  countParams: unknown[];
}

function eventsSource(sql: string, params: unknown[]): Source {
  const count = `SELECT count(*) AS n FROM events WHERE ${sql}`;
  return { from: 'events', key: 'seq', sql, params, count, countParams: params };
}

/**
 * What a database has that older ones lack: the text tables besides the index,
 * events_fts_pending (sql.ts version 5) and events_text (version 6), and the `environment`
 * column (version 10). A read-only opener migrates nothing, so an older database may lack them.
 */
export interface TextTables {
  pending: boolean;
  plain: boolean;
  /** The `environment` column (absent: the filter reads the record, as version 10 back-fills it). */
  environment?: boolean;
}
export const ALL_TEXT_TABLES: TextTables = { pending: true, plain: true, environment: true };

/**
 * A search's sources (the index, the text still pending, the text never indexed: records.ts
 * UNINDEXED_KINDS), `rest` being the other filters; the plain table only when the query could
 * match one of its kinds.
 */
function searchSources(
  match: string,
  needle: string,
  rest: string[],
  restParams: unknown[],
  tables: TextTables,
): Source[] {
  const source = (from: string, key: string, cond: string, param: string, alone: string): Source => {
    const sql = [cond, ...rest].join(' AND ');
    const params = [param, ...restParams];
    // With no other filter, count in the index (or the pending table) alone, with no join.
    return rest.length === 0
      ? { from, key, sql, params, count: alone, countParams: [param] }
      : {
          from,
          key,
          sql,
          params,
          count: `SELECT count(*) AS n FROM ${from} WHERE ${sql}`,
          countParams: params,
        };
  };
  const sources = [
    // CROSS JOIN keeps the index as the outer loop (SQLite never reorders a CROSS JOIN).
    source(
      'events_fts CROSS JOIN events ON events.seq = events_fts.rowid',
      'events_fts.rowid',
      'events_fts MATCH ?',
      match,
      'SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ?',
    ),
    source(
      'events_fts_pending CROSS JOIN events ON events.seq = events_fts_pending.pending_seq',
      'events_fts_pending.pending_seq',
      'instr(events_fts_pending.text, ?) > 0',
      needle,
      'SELECT count(*) AS n FROM events_fts_pending WHERE instr(text, ?) > 0',
    ),
    source(
      'events_text CROSS JOIN events ON events.seq = events_text.text_seq',
      'events_text.text_seq',
      'instr(events_text.text, ?) > 0',
      needle,
      'SELECT count(*) AS n FROM events_text WHERE instr(text, ?) > 0',
    ),
  ];
  return sources.filter((_, i) => i === 0 || (i === 1 ? tables.pending : tables.plain));
}

/** The SQL of each search source as one condition on `events` (for walks over every match). */
const TEXT_CONDITIONS = [
  'seq IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)',
  'seq IN (SELECT pending_seq FROM events_fts_pending WHERE instr(text, ?) > 0)',
  'seq IN (SELECT text_seq FROM events_text WHERE instr(text, ?) > 0)',
];

/** The trigram index matches substrings of at least 3 characters. */
const TRIGRAM = 3;

/**
 * Case-insensitive substring search over what searchText() indexed (DESIGN.md `events
 * --search`): for 3 characters or more, the trigram FTS5 index and the text not yet in it
 * (stored lower-cased: a substring scan of a bounded backlog, writer-protocol.ts INDEX); shorter text
 * falls back to a scan of the summary columns (the index cannot look up fewer than 3 characters).
 */
function shortText(text: string): { sql: string; params: unknown[] } {
  const like = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const cols = ['path', 'transaction_id', 'obj', 'sub', 'failed_check', 'warning', 'remote'];
  return {
    sql: `(${cols.map((c) => `lower(${c}) LIKE ? ESCAPE '\\'`).join(' OR ')})`,
    params: cols.map(() => like),
  };
}

/** The filters of a query (all combined with AND). */
export function whereOf(
  q: Partial<Omit<EventQuery, 'before' | 'limit'>>,
  /** The text tables the database has (a read-only opener migrates nothing). */
  tables: TextTables = ALL_TEXT_TABLES,
): Where {
  const sql: string[] = [];
  const params: unknown[] = [];
  const eq = (col: string, v: unknown) => {
    sql.push(`${col} = ?`);
    params.push(v);
  };
  if (q.kind !== undefined) eq('kind', q.kind);
  if (q.path !== undefined) eq('path', q.path);
  if (q.outcome !== undefined) eq('outcome', q.outcome);
  if (q.failed_check !== undefined) eq('failed_check', q.failed_check);
  // Issue 26 item 1: a callback's environment (records.ts environmentIdOf).
  if (q.environment !== undefined)
    eq(
      tables.environment === false
        ? "(CASE WHEN kind = 'callback' AND json_valid(record) THEN json_extract(record, '$.environment.id') END)"
        : 'environment',
      q.environment,
    );
  // Failed: a check failed, or a callback was answered with an HTTP error (a refused request:
  // 404, 413, 431…), as the Callbacks page marks its rows (issue 13: its "Failed only" asks here).
  const failed = "(failed_check IS NOT NULL OR (kind = 'callback' AND coalesce(status, 0) >= 400))";
  if (q.failed === true) sql.push(failed);
  if (q.failed === false) sql.push(`NOT ${failed}`);
  // DESIGN.md: transaction_ids compare case-insensitively.
  if (q.transaction_id !== undefined) eq('tx_lower', q.transaction_id.toLowerCase());
  if (q.since !== undefined) {
    sql.push('at_ms >= ?');
    params.push(Date.parse(q.since));
  }
  if (q.until !== undefined) {
    sql.push('at_ms <= ?');
    params.push(Date.parse(q.until));
  }
  if (q.after !== undefined) {
    const seq = parseEventId(q.after);
    if (seq === null) throw badArgument(`after: ${q.after} is not an event id`, 'after');
    sql.push('seq > ?');
    params.push(seq);
  }
  const text = q.text ?? '';
  if (text !== '' && [...text].length >= TRIGRAM) {
    const match = `"${text.replace(/"/g, '""')}"`;
    const needle = text.toLowerCase();
    // A kind whose text is all indexed or pending needs no scan of the plain table.
    const plain = tables.plain && (q.kind === undefined || UNINDEXED_KINDS.includes(q.kind));
    const used: TextTables = { pending: tables.pending, plain };
    const sources = searchSources(match, needle, sql, params, used);
    const conds = TEXT_CONDITIONS.filter((_, i) => i === 0 || (i === 1 ? used.pending : used.plain));
    const flat = `(${conds.join(' OR ')})`;
    const textParams = [match, ...conds.slice(1).map(() => needle)];
    return { sql: [flat, ...sql].join(' AND '), params: [...textParams, ...params], sources };
  }
  if (text !== '') {
    const t = shortText(text);
    sql.push(t.sql);
    params.push(...t.params);
  }
  const all = sql.length ? sql.join(' AND ') : '1';
  return { sql: all, params, sources: [eventsSource(all, params)] };
}

/** The rows of these seqs (one parameter, however many). */
export function bySeq(seqs: readonly number[]): Where {
  const sql = 'seq IN (SELECT value FROM json_each(?))';
  const params = [JSON.stringify(seqs)];
  return { sql, params, sources: [eventsSource(sql, params)] };
}

/** The statement {@link newest} runs on one source: its newest rows, by key, a LIMIT of them. */
export function newestSql(
  s: Pick<Source, 'from' | 'sql' | 'key'>,
  columns: string,
  boundOp?: '<' | '>',
): string {
  const bound = boundOp ? ` AND ${s.key} ${boundOp} ?` : '';
  return `SELECT ${columns} FROM ${s.from} WHERE ${s.sql}${bound} ORDER BY ${s.key} DESC LIMIT ?`;
}

/**
 * The newest `limit` rows of `where` (with `extra` on each source's key, e.g. `< ?`), newest
 * first: each source's newest, merged. `columns` must include `seq`.
 */
export function newest(
  db: Database,
  where: Where,
  columns: string,
  limit: number,
  keyBound?: { op: '<' | '>'; seq: number },
): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const s of where.sources) {
    rows.push(
      ...prepared(db, newestSql(s, columns, keyBound?.op)).all(
        ...s.params,
        ...(keyBound ? [keyBound.seq] : []),
        limit,
      ),
    );
  }
  if (where.sources.length === 1) return rows;
  return rows.sort((a, b) => Number(b.seq) - Number(a.seq)).slice(0, limit);
}

/** The exact number of rows of `where` (its sources are disjoint). */
export function countOf(db: Database, where: Where): number {
  let n = 0;
  for (const s of where.sources) n += Number(prepared(db, s.count).get(...s.countParams)?.n ?? 0);
  return n;
}

/** Statements by connection and SQL (preparing costs more than running them). */
const cache = new WeakMap<Database, Map<string, Statement>>();
export function prepared(db: Database, sql: string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let st = m.get(sql);
  if (!st) {
    st = db.prepare(sql);
    if (m.size > 200) m.clear();
    m.set(sql, st);
  }
  return st;
}

/** Runs `fn` in one read transaction, so its statements see one snapshot (a search's sources stay disjoint). */
export function snapshot<T>(db: Database, fn: () => T): T {
  if (db.inTransaction) return fn();
  db.exec('BEGIN');
  try {
    return fn();
  } finally {
    if (db.inTransaction) db.exec('COMMIT');
  }
}

const CHUNK = 500;

/** The statement {@link readRecords} reads each chunk with: rows past a seq, oldest first. */
export function scanChunkSql(whereSql: string): string {
  return `SELECT seq, record FROM events WHERE seq > ? AND ${whereSql} ORDER BY seq LIMIT ${CHUNK}`;
}

/**
 * Records with seq > `after` matching `where`, oldest first, in chunks (a million rows stream
 * without being held). A chunk that meets damage is read again row by row over its seq range;
 * rows that still fail are skipped and reported through `onDamage`, and the walk goes on up to
 * the highest seq the database knows.
 */
export async function* readRecords(
  db: Database,
  options: { after: number; where: Where; onDamage?: (why: string) => void; upTo?: number },
): AsyncGenerator<EventDetail> {
  const { where } = options;
  // A statement that met SQLITE_CORRUPT is not used again: after the error it answers every
  // later step with the same error (issue 24: 340 of 345 rows called unreadable were readable).
  const chunkSql = scanChunkSql(where.sql);
  const oneSql = `SELECT seq, record FROM events WHERE seq = ? AND ${where.sql}`;
  let chunk = db.prepare(chunkSql);
  let one = db.prepare(oneSql);
  let after = options.after;
  let highest: number | null = options.upTo ?? null;
  const top = (): number => {
    if (highest !== null) return highest;
    highest = 0;
    for (const sql of [HIGH_SEQ_SQL, 'SELECT max(seq) AS s FROM events']) {
      try {
        highest = Math.max(highest, Number(db.prepare(sql).get()?.s ?? 0));
      } catch {
        // unreadable: the other source may do
      }
    }
    return highest;
  };
  for (;;) {
    let rows: Record<string, unknown>[];
    try {
      rows = chunk.all(after, ...where.params);
    } catch (err) {
      if (!isCorruption(err)) throw err;
      chunk = db.prepare(chunkSql);
      const why = err instanceof Error ? err.message : String(err);
      const end = Math.min(after + CHUNK, top());
      if (after >= end) return;
      let skipped = 0;
      for (let seq = after + 1; seq <= end; seq++) {
        let r: Record<string, unknown> | undefined;
        try {
          r = one.get(seq, ...where.params);
        } catch (e) {
          if (!isCorruption(e)) throw e;
          one = db.prepare(oneSql);
          skipped++;
          continue;
        }
        const rec = r ? parseRecord(String(r.record)) : null;
        if (rec) yield rec;
      }
      if (skipped > 0)
        options.onDamage?.(`${why}: ${skipped} unreadable rows between e${after + 1} and e${end}`);
      after = end;
      continue;
    }
    if (rows.length === 0) return;
    for (const r of rows) {
      const rec = parseRecord(String(r.record));
      if (rec) yield rec;
      else options.onDamage?.(`the record of row ${String(r.seq)} is not an event`);
    }
    after = Number(rows[rows.length - 1]!.seq);
    if (options.upTo !== undefined && after >= options.upTo) return;
  }
}
