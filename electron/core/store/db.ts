/**
 * The profile database (issue 12, DESIGN.md "Storage"): `<data-dir>/console.db`, SQLite through
 * `libsql` (an N-API binding with prebuilt binaries: it loads unchanged in Node and in
 * Electron's main process, with no Electron-specific rebuild), in WAL mode so readers (the
 * pages, `events`, another process) never wait for the writer, with `synchronous=FULL` so a
 * committed transaction survives a power cut, not only a crash.
 *
 * The schema carries its version: `schema_version` holds one row per applied migration, and
 * MIGRATIONS run in order from version 1, each in its own transaction, so a database written by
 * any earlier version opens in a later one. A migration is never edited once released: a change
 * is a new entry at the end.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';
import { unpackedPath } from '../common/worker-file';

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

/**
 * The schema, in order. Version 1: events with their indexed summary columns (the query
 * fields), the whole record as JSON, a trigram full-text index (case-insensitive substring
 * search, DESIGN.md `events --search`), per-class counters for retention, and `meta`.
 */
export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        kind TEXT NOT NULL,
        class TEXT NOT NULL,
        path TEXT,
        method TEXT,
        status INTEGER,
        outcome TEXT,
        transaction_id TEXT,
        tx_lower TEXT,
        failed_check TEXT,
        obj TEXT,
        sub TEXT,
        duration_ms REAL,
        warning TEXT,
        remote TEXT,
        size INTEGER NOT NULL,
        record TEXT NOT NULL
      );
      CREATE INDEX events_kind ON events (kind);
      CREATE INDEX events_class ON events (class);
      CREATE INDEX events_at ON events (at_ms);
      CREATE INDEX events_path ON events (path);
      CREATE INDEX events_failed ON events (failed_check);
      CREATE INDEX events_tx ON events (tx_lower) WHERE tx_lower IS NOT NULL;
      CREATE VIRTUAL TABLE events_fts USING fts5 (
        text, content='', contentless_delete=1, tokenize='trigram'
      );
      CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
        DELETE FROM events_fts WHERE rowid = old.seq;
      END;
      CREATE TABLE class_stats (
        class TEXT PRIMARY KEY,
        count INTEGER NOT NULL DEFAULT 0,
        bytes INTEGER NOT NULL DEFAULT 0,
        trimmed INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    // Version 2 (issue 12 item 6): the sandbox's state, one row per thing that changes, so a
    // change writes that row and nothing else (it was one JSON file rewritten whole). Each
    // record is the JSON the zod schemas of sandbox/state-schema.ts check on load; signing keys
    // hold their private part only sealed by the vault, exactly as the old file did.
    version: 2,
    sql: `
      CREATE TABLE sandbox_settings (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL);
      CREATE TABLE sandbox_keys (kid TEXT PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE sandbox_counterparties (
        guid TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE TABLE sandbox_traces (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        counterparty_guid TEXT,
        record TEXT NOT NULL
      );
    `,
  },
  {
    // Version 3: the walkthrough's progress, one row per environment (walkthrough/progress.ts),
    // and the damaged records a reset replaced, kept rather than lost.
    version: 3,
    sql: `
      CREATE TABLE walkthrough_progress (environment_id TEXT PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE walkthrough_progress_damaged (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        environment_id TEXT NOT NULL,
        set_aside_at TEXT NOT NULL,
        record TEXT NOT NULL
      );
    `,
  },
  {
    // Version 4: the histories that were files (issue 12 item 1): the service exchange history
    // (service/history.ts, capped by count) and the obj/sub pairs the console signed
    // (jwt/signed-pairs.ts, kept a day; the bank's sub check looks them up by obj and time).
    // Their old files are copied in once (store/file-migration.ts), then renamed aside.
    version: 4,
    sql: `
      CREATE TABLE service_exchanges (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE TABLE signed_pairs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        obj TEXT NOT NULL,
        sub TEXT NOT NULL,
        at_ms INTEGER NOT NULL
      );
      CREATE INDEX signed_pairs_obj ON signed_pairs (obj, at_ms);
      CREATE INDEX signed_pairs_at ON signed_pairs (at_ms);
    `,
  },
  {
    // Version 5 (issue 12, "recording at the cost of the crypto"): full-text indexing off the
    // commit. The writer stores a new event's search text, lower-cased, here in the event's own
    // transaction, and moves it into events_fts later in chunks (writer-protocol.ts INDEX); a search
    // reads both (reader.ts), so its results and totals stay exact. An event's text is in
    // exactly one of the two; deleting the event deletes it from either.
    version: 5,
    sql: `
      CREATE TABLE events_fts_pending (pending_seq INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TRIGGER events_fts_pending_delete AFTER DELETE ON events BEGIN
        DELETE FROM events_fts_pending WHERE pending_seq = old.seq;
      END;
      -- The pages' commonest filter (kind and outcome: "rejected notifications") reads this
      -- index in seq order; it also serves kind alone, so it replaces events_kind.
      CREATE INDEX events_kind_outcome ON events (kind, outcome);
      DROP INDEX events_kind;
      -- A live page's refresh ("notifications since t", with its exact count) reads this; the
      -- planner has no statistics here, and without it walked every row of the kind.
      CREATE INDEX events_kind_at ON events (kind, at_ms);
    `,
  },
  {
    // Version 6 (issue 11 item 5, issue 12: a callback recorded at a small share of its RSA
    // verification's cost): a callback's search text, lower-cased, stays in this plain table
    // and is never moved into the trigram index (moving it cost about as much as writing the
    // row). A search scans it (reader.ts), bounded because callbacks have their own retention
    // caps (sqlite-store.ts DEFAULT_RETENTION). Callbacks recorded before this version stay in
    // the index; an event's text is in exactly one of the three text tables.
    version: 6,
    sql: `
      CREATE TABLE events_text (text_seq INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TRIGGER events_text_delete AFTER DELETE ON events WHEN old.kind = 'callback' BEGIN
        DELETE FROM events_text WHERE text_seq = old.seq;
      END;
    `,
  },
  {
    // Version 7 (issue 12: durable notifications at ≥ 0.6× an eager group commit): a
    // notification's search text stays in events_text as a callback's does (records.ts
    // UNINDEXED_KINDS): its trigrams were most of what the store spent per notification
    // (docs/benchmarks.md, "Figures moved from code comments").
    // Notifications stored before this version keep their text where it is (the index, or
    // pending); trimming a notification (the rejected class's cap, the user's retention) now
    // deletes its plain text too.
    version: 7,
    sql: `
      DROP TRIGGER events_text_delete;
      CREATE TRIGGER events_text_delete AFTER DELETE ON events
        WHEN old.kind IN ('callback', 'notification') BEGIN
        DELETE FROM events_text WHERE text_seq = old.seq;
      END;
    `,
  },
  {
    // Version 8: a kind in seq order. A page's default list (the newest callbacks or
    // notifications, newest first) and \`events --kind\` (oldest first, in chunks) ask for one
    // kind ordered by seq; (kind, outcome) and (kind, at_ms) are not in that order, and without
    // statistics the planner sorted every event of the kind for each page (O(n²) for
    // \`events --kind\`). An index on kind holds (kind, seq): both read it in order and stop at
    // the page's end (docs/benchmarks.md, "Figures moved from code comments").
    version: 8,
    sql: `
      CREATE INDEX events_kind_seq ON events (kind);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

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
