/**
 * Reading events back (issue 12): the one translation of a filter into SQL (query(), scan(),
 * `events` and its flags all go through whereOf), and a reader that walks records oldest first
 * and steps over what it cannot read, so a damaged page costs the rows on it and no more (used by
 * scan() and by `store recover`).
 */
import type { EventDetail, EventQuery } from '../../contract/schemas/events';
import { type Database, isCorruption } from './db';
import { parseRecord } from './records';

export interface Where {
  sql: string;
  params: unknown[];
  /**
   * The FROM clause: `events`, or for a full-text search the index's matches joined to their
   * rows, the index first, so a newest-first page of a search reads its LIMIT of matches in the
   * index's rowid order and stops, instead of materializing every match (a text most events
   * carry matches hundreds of thousands of rows at a million).
   */
  from: string;
  /** The column rows are ordered and paged by (`seq`, or the index's rowid: the same value). */
  key: string;
  /** Only the full-text condition filters: the matches can be counted in the index alone. */
  textOnly: boolean;
}

const EVENTS: Pick<Where, 'from' | 'key'> = { from: 'events', key: 'seq' };
const SEARCHED: Pick<Where, 'from' | 'key'> = {
  // CROSS JOIN keeps the index as the outer loop (SQLite never reorders a CROSS JOIN).
  from: 'events_fts CROSS JOIN events ON events.seq = events_fts.rowid',
  key: 'events_fts.rowid',
};

/** The trigram index matches substrings of at least 3 characters. */
const TRIGRAM = 3;

/**
 * Case-insensitive substring search over what searchText() indexed (DESIGN.md `events
 * --search`): the trigram FTS5 index for 3 characters or more; shorter text falls back to a
 * scan of the summary columns (the index cannot look up fewer than 3 characters).
 */
function textCondition(text: string): Pick<Where, 'sql' | 'params'> & { indexed: boolean } {
  if ([...text].length >= TRIGRAM)
    return { sql: 'events_fts MATCH ?', params: [`"${text.replace(/"/g, '""')}"`], indexed: true };
  const like = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const cols = ['path', 'transaction_id', 'obj', 'sub', 'failed_check', 'warning', 'remote'];
  return {
    sql: `(${cols.map((c) => `lower(${c}) LIKE ? ESCAPE '\\'`).join(' OR ')})`,
    params: cols.map(() => like),
    indexed: false,
  };
}

/** The WHERE clause of a query's filters (all combined with AND); `1` for none. */
export function whereOf(q: Partial<Omit<EventQuery, 'before' | 'limit'>>): Where {
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
  let shape = EVENTS;
  let textOnly = false;
  if (q.text !== undefined && q.text !== '') {
    const t = textCondition(q.text);
    if (t.indexed) {
      shape = SEARCHED;
      textOnly = sql.length === 0;
    }
    sql.push(t.sql);
    params.push(...t.params);
  }
  return { sql: sql.length ? sql.join(' AND ') : '1', params, ...shape, textOnly };
}

/**
 * The exact number of events matching `where`. A search with no other filter counts its
 * matches in the index alone (every event's text is indexed in the transaction that stores the
 * event, and deleting an event deletes its text: db.ts), with no join to the rows.
 */
export function countSql(where: Where): string {
  return where.textOnly
    ? `SELECT count(*) AS n FROM events_fts WHERE ${where.sql}`
    : `SELECT count(*) AS n FROM ${where.from} WHERE ${where.sql}`;
}

/** The rows of these seqs (one parameter, however many). */
export function bySeq(seqs: readonly number[]): Where {
  return {
    sql: 'seq IN (SELECT value FROM json_each(?))',
    params: [JSON.stringify(seqs)],
    ...EVENTS,
    textOnly: false,
  };
}

const CHUNK = 500;

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
  const { from, key } = where;
  const chunk = db.prepare(
    `SELECT seq, record FROM ${from} WHERE ${key} > ? AND ${where.sql} ORDER BY ${key} LIMIT ${CHUNK}`,
  );
  const one = db.prepare(`SELECT seq, record FROM ${from} WHERE ${key} = ? AND ${where.sql}`);
  let after = options.after;
  let highest: number | null = options.upTo ?? null;
  const top = (): number => {
    if (highest !== null) return highest;
    highest = 0;
    for (const sql of [
      "SELECT CAST(value AS INTEGER) AS s FROM meta WHERE key = 'high_seq'",
      'SELECT max(seq) AS s FROM events',
    ]) {
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
      const why = err instanceof Error ? err.message : String(err);
      const end = Math.min(after + CHUNK, top());
      if (after >= end) return;
      let skipped = 0;
      for (let seq = after + 1; seq <= end; seq++) {
        let r: Record<string, unknown> | undefined;
        try {
          r = one.get(seq, ...where.params);
        } catch {
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
