/**
 * Prepared statements kept by their SQL: preparing costs more than running a small statement,
 * and a connection runs the same few dozen again and again. Bounded: past `max` the cache starts
 * over (a caller that builds SQL by shape, never from outside text, has few shapes).
 */
import type { Database, Statement } from './db';

/**
 * @example
 * const statements = new StatementCache(db, 200);
 * statements.get('SELECT 1 AS x FROM events WHERE tx_lower = ? LIMIT 1').get(tx);
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly max: number,
  ) {}

  /** `sql` prepared on this connection, once. */
  get(sql: string): Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      if (this.statements.size > this.max) this.statements.clear();
      this.statements.set(sql, st);
    }
    return st;
  }
}
