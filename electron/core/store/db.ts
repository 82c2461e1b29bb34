/**
 * The profile database (issue 12, DESIGN.md "Storage"): `<data-dir>/console.db`, SQLite through
 * `libsql` (an N-API binding with prebuilt binaries: it loads unchanged in Node and in
 * Electron's main process, with no Electron-specific rebuild), in WAL mode so readers (the
 * pages, `events`, another process) never wait for the writer, with `synchronous=FULL` so a
 * committed transaction survives a power cut, not only a crash.
 *
 * The schema carries its version: `schema_version` holds one row per applied migration, and
 * sql.ts MIGRATIONS run in order from version 1, each in its own transaction, so a database
 * written by any earlier version opens in a later one.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';
// The writer worker's bundle imports this file: it takes the one leaf it needs, not common's
// barrel, which would pull the contract's zod into a worker that ships without node_modules.
// eslint-disable-next-line no-restricted-imports
import { unpackedPath } from '../common/worker-file';
import { MIGRATIONS, SCHEMA_VERSION } from './sql';

/** The subset of libsql's better-sqlite3-like API the store uses. */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  raw(raw?: boolean): Statement;
}
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  close(): void;
  readonly inTransaction: boolean;
}
/** libsql's Database class (what `require('libsql')` gives). */
export type DatabaseCtor = new (
  file: string,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => Database;

export const DB_FILE = 'console.db';
/** How long a connection waits for a lock another holds (a checkpoint, a second writer). */
export const BUSY_TIMEOUT_MS = 5000;

const require = createRequire(import.meta.url);

/**
 * Where libsql's entry is, for the writer's threads to load the same module (writer.ts). In the
 * packaged app that is app.asar.unpacked: workers have no asar support (common/worker-file.ts).
 */
export function libsqlPath(): string {
  return unpackedPath(require.resolve('libsql'));
}

function driver(): DatabaseCtor {
  return require('libsql') as DatabaseCtor;
}

export function dbFile(dataDir: string): string {
  return path.join(dataDir, DB_FILE);
}

export function damagedDb(file: string, why: string): ConsoleError {
  return new ConsoleError(
    'STATE_DAMAGED',
    `The database ${file} is damaged (${why}); it was left untouched. \`dets-console store recover\` copies what is readable into a fresh database.`,
    { file, why },
  );
}

/**
 * Whether `err` is damagedDb's report of a file SQLite cannot read, as opposed to a sound
 * database this console must not touch (a newer schema's, also STATE_DAMAGED).
 */
export function isDamagedDb(err: unknown): err is ConsoleError & { details: { file: string; why: string } } {
  return (
    err instanceof ConsoleError &&
    err.code === 'STATE_DAMAGED' &&
    typeof (err.details as { why?: unknown } | undefined)?.why === 'string'
  );
}

/** SQLite's codes for a file that is not (or no longer) a sound database. */
export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return (
    code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || /malformed|not a database/i.test(String(err))
  );
}

function schemaVersion(db: Database): number {
  const has = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    .get();
  if (!has) return 0;
  const row = db.prepare('SELECT max(version) AS v FROM schema_version').get();
  return Number(row?.v ?? 0);
}

/** Applies the migrations this database has not seen, each in its own transaction. */
export function migrate(db: Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
  );
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION)
    throw new ConsoleError(
      'STATE_DAMAGED',
      `The database is at schema version ${current}, newer than this console knows (${SCHEMA_VERSION}); use a newer DETS Console.`,
    );
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(
        m.version,
        new Date().toISOString(),
      );
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  }
}

/** The pragmas every connection runs with (DESIGN.md "Storage"). */
export function configure(db: Database, readOnly: boolean): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!readOnly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  }
}

/**
 * Opens `<dataDir>/console.db` (creating the folder 0700 and the file 0600 when `create`),
 * configured and migrated. Read-only openers (`events` beside a running `serve`) create and
 * migrate nothing.
 */
export function openDatabase(dataDir: string, options: { readOnly?: boolean } = {}): Database {
  return openDatabaseFile(dbFile(dataDir), options);
}

/** openDatabase() for a file of any name (`store recover` builds a fresh one beside). */
export function openDatabaseFile(file: string, options: { readOnly?: boolean } = {}): Database {
  const readOnly = options.readOnly === true;
  if (!readOnly) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  }
  let db: Database;
  try {
    db = new (driver())(file, readOnly ? { readonly: true, fileMustExist: true } : {});
  } catch (err) {
    if (isCorruption(err)) throw damagedDb(file, err instanceof Error ? err.message : String(err));
    throw err;
  }
  try {
    configure(db, readOnly);
    if (!readOnly) migrate(db);
    else if (schemaVersion(db) > SCHEMA_VERSION) migrate(db); // throws the "newer" error
  } catch (err) {
    db.close();
    if (isCorruption(err)) throw damagedDb(file, err instanceof Error ? err.message : String(err));
    throw err;
  }
  return db;
}
