/**
 * The profile database's SQL (issue 12, issue 25 item 2), in one module that both sides import:
 * the schema (MIGRATIONS, applied by db.ts on the main thread) and the statements of the writer
 * thread (writer-worker.ts and the modules it runs, bundled into `dist/workers/writer-worker.mjs`),
 * of the main thread's store (sqlite-store.ts, reader.ts, profile-db.ts, recover-tables.ts), of
 * the bench's profile builder and of the tests. What a test checks here is what the worker runs.
 *
 * Every statement is a constant or built by a pure function of small numbers: no text from
 * outside ever goes into SQL.
 */

import { addedColumnsDdl, createColumnsDdl, SQLITE_INSERT_COLUMNS } from './event-columns';

// ---------------------------------------------------------------------------------- the schema

/**
 * The schema, in order. A migration is never edited once released: a change is a new entry at
 * the end. Version 1: events with their indexed summary columns (the query
 * fields; written once, for both stores, in event-columns.ts), the whole record as JSON, a trigram full-text index (case-insensitive substring
 * search, DESIGN.md `events --search`), per-class counters for retention, and `meta`.
 */
export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE events (
  ${createColumnsDdl('sqlite', 1)}
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
    // commit. The writer stores a new event's search text, lower-cased, here in the event's
    // own transaction, and moves it into events_fts later in chunks (writer-protocol.ts INDEX);
    // a search reads both (reader.ts), so its results and totals stay exact. An event's text is
    // in exactly one of the two; deleting the event deletes it from either.
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
  {
    // Version 9 (issue 27): the sandbox's notification deliveries, one row per delivery with its
    // attempts (the record: contract/schemas/delivery.ts Delivery), so a delivery on the
    // service's retry ladder survives a restart and resumes (the state and the next attempt's
    // time are columns: the resume reads `delivering` rows by next_at_ms).
    version: 9,
    sql: `
      CREATE TABLE sandbox_deliveries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id TEXT NOT NULL UNIQUE,
        counterparty_guid TEXT NOT NULL,
        tx_lower TEXT NOT NULL,
        state TEXT NOT NULL,
        next_at_ms INTEGER,
        record TEXT NOT NULL
      );
      CREATE INDEX sandbox_deliveries_state ON sandbox_deliveries (state, next_at_ms);
      CREATE INDEX sandbox_deliveries_tx ON sandbox_deliveries (tx_lower);
    `,
  },
  {
    // Version 10 (issue 26 item 1): the environment a callback belongs to as a column (it was
    // only in the record, records.ts environmentIdOf), so events.query filters by it. Callbacks
    // stored before it get theirs from their record where the record names one (a record that
    // is not valid JSON keeps null rather than failing the migration); an index for the filter.
    version: 10,
    sql: `
      ${addedColumnsDdl('sqlite', 10)}
      UPDATE events SET environment = json_extract(record, '$.environment.id')
        WHERE kind = 'callback' AND instr(record, '"environment":{') > 0 AND json_valid(record);
      CREATE INDEX events_environment ON events (environment) WHERE environment IS NOT NULL;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

// ------------------------------------------------------------------- the sandbox's deliveries

/** Finished deliveries kept (the newest); deliveries still on their ladder are never trimmed. */
export const DELIVERIES_KEPT = 10_000;

/**
 * The statements of the sandbox's deliveries (MIGRATIONS version 9; sandbox/delivery/store.ts),
 * here with the schema so another store (issue 30's PostgreSQL) ports them in one place.
 * Parameters are positional: see each statement's comment.
 */
export const DELIVERY_SQL = {
  /** delivery_id, counterparty_guid, tx_lower, state, next_at_ms, record. */
  upsert: `INSERT INTO sandbox_deliveries (delivery_id, counterparty_guid, tx_lower, state, next_at_ms, record)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (delivery_id) DO UPDATE SET state = excluded.state, next_at_ms = excluded.next_at_ms,
      record = excluded.record`,
  /** Keeps the newest DELIVERIES_KEPT finished deliveries (run as a new one is added). */
  trim: `DELETE FROM sandbox_deliveries WHERE state <> 'delivering' AND seq <=
    (SELECT seq FROM sandbox_deliveries ORDER BY seq DESC LIMIT 1 OFFSET ${DELIVERIES_KEPT})`,
  /** Every delivery still on its ladder, to resume after a restart. */
  active: "SELECT delivery_id, record FROM sandbox_deliveries WHERE state = 'delivering' ORDER BY seq",
  /** The newest finished ones (?: how many), newest first. */
  recentFinished:
    "SELECT delivery_id, record FROM sandbox_deliveries WHERE state <> 'delivering' ORDER BY seq DESC LIMIT ?",
  /** One by id. */
  byId: 'SELECT delivery_id, record FROM sandbox_deliveries WHERE delivery_id = ?',
} as const;

// ------------------------------------------------------------------------- the writer's rows

/**
 * The head of the writer's event insert: the events table's columns in the order of a row's
 * places (records.ts EventRow and ROW), so a row's first EVENT_COLUMNS places are the
 * statement's parameters as they are.
 */
export const INTO_EVENTS = `INSERT INTO events (${SQLITE_INSERT_COLUMNS.map((c) => c.name).join(', ')})`;
/** How many columns INTO_EVENTS names (records.ts ROW.search: the search text comes after them). */
export const EVENT_COLUMNS = SQLITE_INSERT_COLUMNS.length;
/**
 * The writer's way into the full-text index (MIGRATIONS version 5): a new row's text waits in
 * events_fts_pending, lower-cased (reader.ts searches it there), and goes into the index later,
 * in chunks (writer-upkeep.ts, MOVE_PENDING_SQL). A trigram row costs more than the event row
 * itself, and FTS5 writes a segment per transaction, so indexing each small group commit's rows
 * in it was most of a durable notification's cost (docs/benchmarks.md).
 */
export const INTO_PENDING = 'INSERT INTO events_fts_pending (pending_seq, text)';
/** Where the text of the kinds never indexed goes (records.ts UNINDEXED_KINDS; version 6). */
export const INTO_TEXT = 'INSERT INTO events_text (text_seq, text)';

/**
 * `head` with `n` groups of `width` placeholders: how the writer inserts up to ROWS_PER_INSERT
 * rows with one statement (and its parameters flat, row after row).
 *
 * @example
 * insertRowsSql(INTO_TEXT, 2, 2); // 'INSERT INTO events_text (text_seq, text) VALUES (?, ?), (?, ?)'
 */
export function insertRowsSql(head: string, width: number, n: number): string {
  const group = `(${new Array<string>(width).fill('?').join(', ')})`;
  return `${head} VALUES ${new Array<string>(n).fill(group).join(', ')}`;
}

/**
 * The writer inserts up to this many rows with one statement (one VALUES list): a libsql call
 * costs about what a small row does, so a group commit of 32 rows makes 2 calls, not 64
 * (docs/benchmarks.md, "Figures moved from code comments").
 */
export const ROWS_PER_INSERT = 32;

/**
 * One event row with its parameters numbered ?1…?EVENT_COLUMNS: a whole row (records.ts EventRow)
 * binds as it is, its last place (the search text) unused. The writer inserts the same
 * columns with insertRowsSql(INTO_EVENTS, …); the bench's profile builder uses this one.
 */
export const INSERT_EVENT_SQL = `${INTO_EVENTS}
     VALUES (${Array.from({ length: EVENT_COLUMNS }, (_, i) => `?${i + 1}`).join(', ')})`;
/** One unindexed text row, as the writer inserts it (insertRowsSql(INTO_TEXT, 2, 1)). */
export const INSERT_UNINDEXED_TEXT_SQL = insertRowsSql(INTO_TEXT, 2, 1);
/**
 * One text row straight into the full-text index. The writer never runs this (its rows wait in
 * events_fts_pending, moved by MOVE_PENDING_SQL); the bench's profile builder does, for the
 * kinds that are indexed, to build a profile as it is once the writer has indexed everything.
 */
export const INSERT_TEXT_SQL = 'INSERT INTO events_fts (rowid, text) VALUES (?, ?)';

/**
 * Which of some transaction_ids (lower case) an accepted notification already carries: one probe
 * of events_tx per id, inside the writer's transaction (AppendOptions.repeatCheck). The unary +
 * keeps kind and outcome out of the index choice: with no ANALYZE statistics SQLite would
 * otherwise walk events_kind_outcome, every accepted notification ever stored, per commit.
 *
 * @example
 * acceptedAmongSql(2); // "SELECT tx_lower AS t FROM events WHERE … AND tx_lower IN (?, ?)"
 */
export function acceptedAmongSql(n: number): string {
  return `SELECT tx_lower AS t FROM events
  WHERE +kind = 'notification' AND +outcome = 'accepted' AND tx_lower IN (${new Array<string>(n).fill('?').join(', ')})`;
}

// ----------------------------------------------------------------------- per-class retention

/** Adds a commit's rows to their class's count and bytes (DESIGN.md "Storage": bounded events). */
export const BUMP_CLASS_SQL = `INSERT INTO class_stats (class, count, bytes) VALUES (?, ?, ?)
     ON CONFLICT (class) DO UPDATE SET count = count + excluded.count, bytes = bytes + excluded.bytes`;
/** A class's count. */
export const CLASS_COUNT_SQL = 'SELECT count FROM class_stats WHERE class = ?';
/** The oldest N events of a class: the highest seq among them, how many, their bytes. */
export const OLDEST_OF_CLASS_SQL = `SELECT max(seq) AS upto, count(*) AS n, coalesce(sum(size), 0) AS bytes
     FROM (SELECT seq, size FROM events WHERE class = ? ORDER BY seq LIMIT ?)`;
/** Trims a class up to a seq (its text goes with it: the triggers above). */
export const TRIM_CLASS_SQL = 'DELETE FROM events WHERE class = ? AND seq <= ?';
/** What a trim took off a class's counters. */
export const TRIMMED_SQL =
  'UPDATE class_stats SET count = count - ?, bytes = bytes - ?, trimmed = trimmed + ? WHERE class = ?';

// ---------------------------------------------------------------------------- ids and meta

/** Sets `meta.key` (the writer's batch meta, profile-db.ts metaStep). */
export const SET_META_SQL =
  'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';
/** Raises meta.high_seq, the highest id ever given: it outlives trimming, so ids never repeat. */
export const RAISE_HIGH_SEQ_SQL = `INSERT INTO meta (key, value) VALUES ('high_seq', ?)
     ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`;
/** meta.high_seq as a number (reader.ts reads it to know how far a damaged table went). */
export const HIGH_SEQ_SQL = "SELECT CAST(value AS INTEGER) AS s FROM meta WHERE key = 'high_seq'";
/** The last id given, stored or trimmed: the next new row's seq is one more. */
export const MAX_SEQ_SQL = `SELECT max(coalesce((SELECT max(seq) FROM events), 0), coalesce((${HIGH_SEQ_SQL}), 0)) AS s`;

// --------------------------------------------------------------------- text waiting for the index

/** How much text waits (of the oldest `?` rows): the highest pending_seq and how many. */
export const PENDING_TOP_SQL =
  'SELECT max(pending_seq) AS s, count(*) AS n FROM (SELECT pending_seq FROM events_fts_pending ORDER BY pending_seq LIMIT ?)';
/** Moves waiting text up to a pending_seq into the index… */
export const MOVE_PENDING_SQL =
  'INSERT INTO events_fts (rowid, text) SELECT pending_seq, text FROM events_fts_pending WHERE pending_seq <= ?';
/** …and drops it from the waiting table, in the same transaction. */
export const DROP_PENDING_SQL = 'DELETE FROM events_fts_pending WHERE pending_seq <= ?';
/** How many rows of text wait. */
export const PENDING_COUNT_SQL = 'SELECT count(*) AS n FROM events_fts_pending';

/**
 * The tables the writer fills from the events it stores (their text, the full-text index and
 * its shadow tables, the class counts): `store recover` rebuilds them by storing the events
 * again through the writer, never by copying them.
 */
export function writtenFromEvents(table: string): boolean {
  return (
    /^(events|events_text|events_fts_pending|class_stats)$/.test(table) || table.startsWith('events_fts')
  );
}

/** SQLite's own check of every page (20 problems at most), run on its own thread (writer.ts quickCheck). */
export const QUICK_CHECK_SQL = 'PRAGMA quick_check(20)';

/**
 * The lowest seq of the events at or after a time (`since`): where a scan of the window starts
 * (sqlite-store.ts scan). `seq + 0`: a bare min(seq) makes SQLite walk the table in seq order
 * until a row is in the window; this reads the at_ms index's range instead
 * (docs/benchmarks.md, "Figures moved from code comments").
 */
export const SINCE_FIRST_SEQ_SQL = 'SELECT min(seq + 0) AS s FROM events WHERE at_ms >= ?';
