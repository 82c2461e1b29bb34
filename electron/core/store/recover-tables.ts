/**
 * `store recover`'s copy of the profile's tables other than the events (issue 12, issue 24 item
 * 6): every readable row, chunk by chunk, and row by row where a chunk meets damage.
 */
import { isCorruption, openDatabaseFile, type Database, type Statement } from './db';
import { writtenFromEvents } from './sql';

const CHUNK = 2000;

/**
 * Tables the writer rebuilds from the events it stores (sql.ts writtenFromEvents), SQLite's own,
 * and the schema's version: not copied.
 */
function rebuilt(table: string): boolean {
  return (
    writtenFromEvents(table) ||
    table === 'schema_version' ||
    table === 'sqlite_sequence' ||
    table.startsWith('sqlite_')
  );
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function columnsOf(db: Database, table: string): string[] {
  return db
    .prepare(`SELECT name FROM pragma_table_info(?)`)
    .all(table)
    .map((r) => String(r.name));
}

function tablesOf(db: Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => String(r.name));
}

/**
 * How a row goes into the fresh table: `meta`'s high_seq keeps the higher of the two (event ids
 * are never given twice); any other row replaces one with its key.
 */
function insertInto(fresh: Database, table: string, cols: string[]): Statement {
  if (table === 'meta')
    return fresh.prepare(
      `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value =
         CASE WHEN key = 'high_seq' THEN CAST(max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)) AS TEXT)
         ELSE excluded.value END`,
    );
  return fresh.prepare(
    `INSERT OR REPLACE INTO ${quote(table)} (${cols.map(quote).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
  );
}

/** The copy of one table: its readable rows, in rowid order, into the fresh one (or only read). */
class TableCopy {
  rows = 0;
  private refused = 0;
  private refusal = '';
  private readonly chunkSql: string;
  private readonly oneSql: string;
  private readonly insert: Statement | null;

  constructor(
    private readonly old: Database,
    fresh: Database | null,
    private readonly table: string,
    private readonly cols: string[],
    private readonly unreadable: string[],
  ) {
    const list = cols.map(quote).join(', ');
    this.chunkSql = `SELECT rowid AS "__rowid", ${list} FROM ${quote(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`;
    this.oneSql = `SELECT ${list} FROM ${quote(table)} WHERE rowid = ?`;
    this.insert = fresh ? insertInto(fresh, table, cols) : null;
  }

  /** Chunk by chunk; a chunk that meets damage is read again row by row. */
  run(): void {
    // A statement that met SQLITE_CORRUPT is prepared again before its next use: reused, it
    // answers every later step with the same error (issue 24 item 6).
    let chunk = this.old.prepare(this.chunkSql);
    let after = 0;
    for (;;) {
      let batch: Record<string, unknown>[];
      try {
        batch = chunk.all(after);
      } catch (err) {
        if (!isCorruption(err)) throw err;
        chunk = this.old.prepare(this.chunkSql);
        const next = this.rowByRow(after, message(err));
        if (next === null) break;
        after = next;
        continue;
      }
      if (batch.length === 0) break;
      for (const r of batch) this.put(r);
      after = Number(batch[batch.length - 1]!.__rowid);
    }
    if (this.refused > 0)
      this.unreadable.push(
        `${this.table}: ${this.refused} rows not taken by the fresh schema (${this.refusal})`,
      );
  }

  /**
   * The chunk after `after`, row by row, up to the highest rowid the table can still say it has;
   * where to go on from, or null when nothing past it can be found.
   */
  private rowByRow(after: number, why: string): number | null {
    let top = after;
    try {
      top = Number(this.old.prepare(`SELECT max(rowid) AS m FROM ${quote(this.table)}`).get()?.m ?? after);
    } catch {
      // unknown: nothing past `after` can be found
    }
    const end = Math.min(top, after + CHUNK);
    if (end <= after) {
      this.unreadable.push(`${this.table}: ${why}: the rows after rowid ${after} could not be read`);
      return null;
    }
    let one = this.old.prepare(this.oneSql);
    let skipped = 0;
    for (let id = after + 1; id <= end; id++) {
      let r: Record<string, unknown> | undefined;
      try {
        r = one.get(id);
      } catch (e) {
        if (!isCorruption(e)) throw e;
        one = this.old.prepare(this.oneSql);
        skipped++;
        continue;
      }
      if (r) this.put(r);
    }
    if (skipped > 0)
      this.unreadable.push(
        `${this.table}: ${why}: ${skipped} unreadable rows between rowid ${after + 1} and ${end}`,
      );
    return end >= top ? null : end;
  }

  private put(r: Record<string, unknown>): void {
    try {
      this.insert?.run(...this.cols.map((c) => r[c]));
      this.rows++;
    } catch (err) {
      // A row the fresh schema will not take (a constraint): said, not fatal.
      this.refused++;
      this.refusal = message(err);
    }
  }
}

/** AUTOINCREMENT counters never go back (a deleted trace's number is not given again). */
function raiseCounters(old: Database, fresh: Database, freshNames: Set<string>, unreadable: string[]): void {
  try {
    const counters = old.prepare('SELECT name, seq FROM sqlite_sequence').all();
    const raise = fresh.prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?');
    const add = fresh.prepare(
      'INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)',
    );
    for (const c of counters) {
      if (!freshNames.has(String(c.name))) continue;
      raise.run(c.seq, c.name);
      add.run(c.name, c.seq, c.name);
    }
  } catch (err) {
    if (!isCorruption(err)) throw err;
    unreadable.push(`sqlite_sequence: ${message(err)}`);
  }
}

/** Every table of `old` to copy, each with the columns both files have; null when the list is unreadable. */
function tablesToCopy(
  old: Database,
  fresh: Database | null,
  unreadable: string[],
): { table: string; cols: string[] }[] | null {
  let names: string[];
  try {
    names = tablesOf(old);
  } catch (err) {
    if (!isCorruption(err)) throw err;
    unreadable.push(`the list of tables: ${message(err)}`);
    return null;
  }
  const freshNames = fresh ? new Set(tablesOf(fresh)) : null;
  const out: { table: string; cols: string[] }[] = [];
  for (const table of names) {
    if (rebuilt(table) || (freshNames && !freshNames.has(table))) continue;
    const want = fresh ? new Set(columnsOf(fresh, table)) : null;
    const cols = columnsOf(old, table).filter((c) => !want || want.has(c));
    if (cols.length > 0) out.push({ table, cols });
  }
  return out;
}

/**
 * Copies every readable row of `from`'s tables that the fresh database also has (the columns
 * both have) and that the writer does not rebuild, in rowid order, `CHUNK` at a time; a chunk
 * that meets damage is read again row by row, and what still fails is reported and skipped.
 * `meta`'s high_seq keeps the higher of the two (event ids are never given twice), and each
 * AUTOINCREMENT counter the higher of the two. With `to` null, only reads them (a check).
 */
export function copyTables(
  from: string,
  to: string | null,
  unreadable: string[],
): { table: string; rows: number }[] {
  const old = openDatabaseFile(from, { readOnly: true });
  const fresh = to === null ? null : openDatabaseFile(to);
  const copied: { table: string; rows: number }[] = [];
  try {
    const tables = tablesToCopy(old, fresh, unreadable);
    if (tables === null) return copied;
    fresh?.exec('BEGIN');
    try {
      for (const { table, cols } of tables) {
        const copy = new TableCopy(old, fresh, table, cols, unreadable);
        copy.run();
        if (copy.rows > 0) copied.push({ table, rows: copy.rows });
      }
      if (fresh) raiseCounters(old, fresh, new Set(tablesOf(fresh)), unreadable);
      fresh?.exec('COMMIT');
    } catch (err) {
      if (fresh?.inTransaction) fresh.exec('ROLLBACK');
      throw err;
    }
  } finally {
    fresh?.close();
    old.close();
  }
  return copied;
}
