/**
 * A query's filters as PostgreSQL (issue 30 item 4): the same filters as reader.ts whereOf, with
 * the same meaning (DESIGN.md `events`: transaction_ids and text compared case-insensitively,
 * "failed" as the Callbacks page marks its rows), in PostgreSQL's dialect ($n parameters, the
 * trigram index for text).
 */
import { badArgument } from '../../contract/errors';
import type { EventQuery } from '../../contract/schemas/events';
import { parseEventId } from './records';

/** A condition on `events` and its parameters, numbered from `$1`. */
export interface PgWhere {
  sql: string;
  params: unknown[];
}

/** `text` as a LIKE pattern matching it anywhere (its own `%`, `_` and `\` taken literally). */
export function likeAnywhere(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The filters of a query, combined with AND.
 *
 * @example
 * pgWhereOf({ kind: 'notification', text: 'abc' });
 * // { sql: "kind = $1 AND search LIKE $2", params: ['notification', '%abc%'] }
 */
export function pgWhereOf(q: Partial<Omit<EventQuery, 'before' | 'limit'>>): PgWhere {
  const sql: string[] = [];
  const params: unknown[] = [];
  const add = (cond: (p: string) => string, v: unknown) => {
    params.push(v);
    sql.push(cond(`$${params.length}`));
  };
  if (q.kind !== undefined) add((p) => `kind = ${p}`, q.kind);
  if (q.path !== undefined) add((p) => `path = ${p}`, q.path);
  if (q.outcome !== undefined) add((p) => `outcome = ${p}`, q.outcome);
  if (q.failed_check !== undefined) add((p) => `failed_check = ${p}`, q.failed_check);
  if (q.environment !== undefined) add((p) => `environment = ${p}`, q.environment);
  const failed = "(failed_check IS NOT NULL OR (kind = 'callback' AND coalesce(status, 0) >= 400))";
  if (q.failed === true) sql.push(failed);
  if (q.failed === false) sql.push(`NOT ${failed}`);
  if (q.transaction_id !== undefined) add((p) => `tx_lower = ${p}`, q.transaction_id.toLowerCase());
  if (q.since !== undefined) add((p) => `at_ms >= ${p}`, Date.parse(q.since!));
  if (q.until !== undefined) add((p) => `at_ms <= ${p}`, Date.parse(q.until!));
  if (q.after !== undefined) {
    const seq = parseEventId(q.after);
    if (seq === null) throw badArgument(`after: ${q.after} is not an event id`, 'after');
    add((p) => `seq > ${p}`, seq);
  }
  // The search column is stored lower-cased; the trigram index answers LIKE for 3+ characters.
  if (q.text !== undefined && q.text !== '') add((p) => `search LIKE ${p}`, likeAnywhere(q.text!));
  return { sql: sql.length ? sql.join(' AND ') : 'TRUE', params };
}
