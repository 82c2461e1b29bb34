/**
 * The writer thread's connection to the profile database (issue 12; runs inside
 * writer-worker.ts): WAL, `synchronous=FULL` unless a batch has nothing durable in it, SQLite's
 * automatic checkpoint off (writer-upkeep.ts does it), and the transactions and cached
 * statements the writer's requests run.
 */
import { createRequire } from 'node:module';
import type { Database, DatabaseCtor, Statement } from './db';
import { insertRowsSql } from './sql';
import { StatementCache } from './statement-cache';

/** `synchronous` as the writer sets it: FULL for what someone waits on, NORMAL for the rest. */
export type Sync = 'FULL' | 'NORMAL';

/**
 * libsql's Database class, loaded from the path the main thread resolved (writer-protocol.ts
 * WorkerData.libsql), so both threads run the same binding.
 */
export function loadDriver(libsql: string): DatabaseCtor {
  return createRequire(import.meta.url)(libsql) as DatabaseCtor;
}

/** The writer's read-write connection, and what it runs its statements with. */
export class WriterConnection {
  readonly db: Database;
  private sync: Sync = 'FULL';
  /** Statements inserting n rows at once, by head and n (at most 3 × ROWS_PER_INSERT of them). */
  private readonly many = new Map<string, Statement>();
  /** The state tables' statements (sandbox, walkthrough: `exec`), prepared once each. */
  private readonly prepared: StatementCache;

  constructor(
    Driver: DatabaseCtor,
    file: string,
    private readonly busyTimeoutMs: number,
  ) {
    this.db = new Driver(file);
    this.prepared = new StatementCache(this.db, 100);
    this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('wal_autocheckpoint = 0');
  }

  /**
   * A batch with nothing durable in it (callbacks, exchanges) commits without its own fsync; the
   * next durable commit's fsync of the WAL covers its frames too (WAL appends in order).
   */
  setSync(want: Sync): void {
    if (want !== this.sync) {
      this.db.pragma(`synchronous = ${want}`);
      this.sync = want;
    }
  }

  /** `fn` inside BEGIN IMMEDIATE … COMMIT; rolled back, and rethrown, when it throws. */
  inTransaction(fn: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      fn();
      this.db.exec('COMMIT');
    } catch (err) {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // the connection rolled back by itself
      }
      throw err;
    }
  }

  /** Inserts `params.length / width` rows with one statement (sql.ts insertRowsSql). */
  insertRows(head: string, width: number, params: unknown[]): void {
    const n = params.length / width;
    if (n === 0) return;
    const key = `${n} ${head}`;
    let st = this.many.get(key);
    if (!st) {
      st = this.db.prepare(insertRowsSql(head, width, n));
      this.many.set(key, st);
    }
    st.run(params);
  }

  /** `sql` prepared once (the state tables use a few dozen statements). */
  statement(sql: string): Statement {
    return this.prepared.get(sql);
  }

  /** `fn` with busy_timeout 0: a checkpoint that never waits for a reader. */
  withoutWaiting<T>(fn: () => T): T {
    this.db.pragma('busy_timeout = 0');
    try {
      return fn();
    } finally {
      this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}
