/**
 * The `events` table's columns, written once (issue 26 item 1, a review finding: the list was
 * written twice, in sql.ts and pg-schema.ts, and could drift): each column's place in a row
 * (records.ts EventRow), its type in each dialect and the schema version of each store that
 * added it. SQLite's DDL and the writer's INSERT (sql.ts), PostgreSQL's DDL and its unnest INSERT
 * (pg-schema.ts, pg-commit.ts) and `store recover`'s page reader (salvage.ts) are generated
 * from this table. Plain data: the writer worker's bundle imports it.
 */

/** One column of `events`. */
export interface EventColumn {
  name: string;
  /** Its place in an EventRow (records.ts): the value a row gives it. */
  place: number;
  /** Its SQLite type and constraints; null: not a SQLite column (the search text has tables of its own). */
  sqlite: string | null;
  /** Its PostgreSQL type and constraints. */
  pg: string;
  /** The element type of the array PostgreSQL's INSERT unnests (pg-commit.ts). */
  pgArray: string;
  /**
   * The schema version that added it: SQLite's (sql.ts MIGRATIONS) and PostgreSQL's
   * (pg-schema.ts). A released migration never changes, so a new column is added by a new
   * version (ALTER TABLE … ADD COLUMN, appended after the others in the file).
   */
  since: { sqlite: number; pg: number };
}

const col = (
  name: string,
  place: number,
  sqlite: string | null,
  pg: string,
  pgArray: string,
  since = { sqlite: 1, pg: 1 },
): EventColumn => ({ name, place, sqlite, pg, pgArray, since });

/** Every column, in row order. */
export const EVENT_COLUMN_TABLE: readonly EventColumn[] = [
  col('seq', 0, 'INTEGER PRIMARY KEY', 'BIGSERIAL PRIMARY KEY', 'bigint'),
  col('at', 1, 'TEXT NOT NULL', 'TEXT NOT NULL', 'text'),
  col('at_ms', 2, 'INTEGER NOT NULL', 'BIGINT NOT NULL', 'bigint'),
  col('kind', 3, 'TEXT NOT NULL', 'TEXT NOT NULL', 'text'),
  col('class', 4, 'TEXT NOT NULL', 'TEXT NOT NULL', 'text'),
  col('path', 5, 'TEXT', 'TEXT', 'text'),
  col('method', 6, 'TEXT', 'TEXT', 'text'),
  col('status', 7, 'INTEGER', 'INTEGER', 'int'),
  col('outcome', 8, 'TEXT', 'TEXT', 'text'),
  col('transaction_id', 9, 'TEXT', 'TEXT', 'text'),
  col('tx_lower', 10, 'TEXT', 'TEXT', 'text'),
  col('failed_check', 11, 'TEXT', 'TEXT', 'text'),
  col('obj', 12, 'TEXT', 'TEXT', 'text'),
  col('sub', 13, 'TEXT', 'TEXT', 'text'),
  col('duration_ms', 14, 'REAL', 'DOUBLE PRECISION', 'float8'),
  col('warning', 15, 'TEXT', 'TEXT', 'text'),
  col('remote', 16, 'TEXT', 'TEXT', 'text'),
  col('size', 17, 'INTEGER NOT NULL', 'INTEGER NOT NULL', 'int'),
  col('record', 18, 'TEXT NOT NULL', 'TEXT NOT NULL', 'text'),
  // Issue 26 item 1: the environment a callback belongs to (records.ts environmentIdOf), a
  // column so events.query filters by it (SQLite version 10, PostgreSQL version 2).
  col('environment', 19, 'TEXT', 'TEXT', 'text', { sqlite: 10, pg: 2 }),
  col('search', 20, null, 'TEXT NOT NULL', 'text'),
];

/** SQLite's columns in the order its file holds them: by the version that added them, then row order. */
export const SQLITE_EVENT_COLUMNS: readonly EventColumn[] = EVENT_COLUMN_TABLE.filter(
  (c) => c.sqlite !== null,
).sort((a, b) => a.since.sqlite - b.since.sqlite || a.place - b.place);

/** PostgreSQL's columns, in row order. */
export const PG_EVENT_COLUMNS: readonly EventColumn[] = EVENT_COLUMN_TABLE;

/**
 * The column definitions of a `CREATE TABLE events (…)` holding what `version` of `dialect`
 * first created (the columns added later come by {@link addedColumnsDdl}).
 *
 * @example
 * createColumnsDdl('sqlite', 1); // "seq INTEGER PRIMARY KEY,\n  at TEXT NOT NULL, …"
 */
export function createColumnsDdl(dialect: 'sqlite' | 'pg', version: number): string {
  return columnsOf(dialect, version)
    .map((c) => `${c.name} ${dialect === 'sqlite' ? c.sqlite! : c.pg}`)
    .join(',\n  ');
}

/** The `ALTER TABLE events ADD COLUMN …;` statements of the columns `version` of `dialect` added. */
export function addedColumnsDdl(dialect: 'sqlite' | 'pg', version: number): string {
  return columnsOf(dialect, version)
    .map((c) => `ALTER TABLE events ADD COLUMN ${c.name} ${dialect === 'sqlite' ? c.sqlite! : c.pg};`)
    .join('\n');
}

function columnsOf(dialect: 'sqlite' | 'pg', version: number): EventColumn[] {
  const all = dialect === 'sqlite' ? SQLITE_EVENT_COLUMNS : PG_EVENT_COLUMNS;
  return all.filter((c) => (dialect === 'sqlite' ? c.since.sqlite : c.since.pg) === version);
}

/**
 * The columns a SQLite row inserts, in row order: a row's first places are exactly these
 * (records.ts EventRow puts the search text, which is not a SQLite column, last).
 */
export const SQLITE_INSERT_COLUMNS: readonly EventColumn[] = EVENT_COLUMN_TABLE.filter(
  (c) => c.sqlite !== null,
);
