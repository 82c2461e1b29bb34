/**
 * Counts over the stored events (contract EventStatsQuery): the total of a query, its counts
 * grouped by one column, and its rate in clock-aligned buckets, each summed across the sources a
 * search reads (reader.ts Where). One snapshot, so the three agree.
 */
import type { EventStats, EventStatsQuery } from '../../contract/schemas/events';
import type { Database } from './db';
import { countOf, snapshot, type TextTables, type Where, whereOf } from './reader';
import type { StatementCache } from './statement-cache';

/**
 * Counts grouped by `group` (an SQL expression of the row, never text from outside) over the
 * sources of `where`, summed across them: [{ v, n }], by `order`.
 */
function grouped(
  statements: StatementCache,
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
  return statements.get(sql).all(...params);
}

/** Whole clock-aligned buckets of `where`'s events, the last ending where the current one starts. */
function rateOf(
  statements: StatementCache,
  where: Where,
  rate: NonNullable<EventStatsQuery['rate']>,
): NonNullable<EventStats['rate']> {
  const { bucket_ms: size, buckets } = rate;
  const until = rate.until !== undefined ? Date.parse(rate.until) : Date.now();
  const end = Math.floor(until / size) * size;
  const start = end - size * buckets;
  const counts = new Array<number>(buckets).fill(0);
  // Bound numbers arrive as REAL, so the division is cast back to a bucket index.
  const rows = grouped(
    statements,
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
  return { start: new Date(start).toISOString(), bucket_ms: size, counts };
}

/**
 * The stats `q` asks for, read in one snapshot of `db`.
 *
 * @example
 * eventStats(db, statements, textTables, { query: { kind: 'notification' }, by: 'outcome' });
 * // { total: 12, groups: [{ value: 'accepted', count: 10 }, …], rate: null }
 */
export function eventStats(
  db: Database,
  statements: StatementCache,
  textTables: TextTables,
  q: EventStatsQuery,
): EventStats {
  return snapshot(db, () => {
    const where = whereOf(q.query ?? {}, textTables);
    const total = countOf(db, where);
    // `by` is one of the contract's column names (an enum), never text from outside.
    const groups = q.by
      ? grouped(statements, where, q.by, { sql: '', params: [] }, 'n DESC, v').map((r) => ({
          value: r.v === null ? null : String(r.v),
          count: Number(r.n),
        }))
      : [];
    return { total, groups, rate: q.rate ? rateOf(statements, where, q.rate) : null };
  });
}
