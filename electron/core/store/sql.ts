/**
 * The statements of the profile database's writer (issue 12, issue 25 item 2), in one module
 * that both sides import: the writer thread (writer-worker.ts and the modules it runs, bundled
 * into `dist/workers/writer-worker.mjs`), the main thread (profile-db.ts, reader.ts), the bench's
 * profile builder and the tests. What a test checks here is what the worker runs. The schema
 * these statements write into is db.ts MIGRATIONS.
 *
 * Every statement is a constant or built by a pure function of small numbers: no text from
 * outside ever goes into SQL.
 */

/**
 * The head of the writer's event insert: the events table's columns in the order of a row's
 * places (records.ts EventRow and ROW), so a row's first EVENT_COLUMNS places are the
 * statement's parameters as they are.
 */
export const INTO_EVENTS = `INSERT INTO events (seq, at, at_ms, kind, class, path, method, status, outcome, transaction_id,
       tx_lower, failed_check, obj, sub, duration_ms, warning, remote, size, record)`;
/** How many columns INTO_EVENTS names (records.ts ROW.search: the search text comes after them). */
export const EVENT_COLUMNS = 19;
/**
 * The writer's way into the full-text index (db.ts version 5): a new row's text waits in
 * events_fts_pending, lower-cased (reader.ts searches it there), and goes into the index later,
 * in chunks (writer-upkeep.ts, MOVE_PENDING_SQL). A trigram row costs more than the event row
 * itself, and FTS5 writes a segment per transaction, so indexing each small group commit's rows
 * in it was most of a durable notification's cost (docs/benchmarks.md).
 */
export const INTO_PENDING = 'INSERT INTO events_fts_pending (pending_seq, text)';
/** Where the text of the kinds never indexed goes (records.ts UNINDEXED_KINDS, db.ts version 6). */
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
 * One event row with its parameters numbered ?1…?19: a whole row (records.ts EventRow, 20
 * places) binds as it is, its 20th place (the search text) unused. The writer inserts the same
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
/** Trims a class up to a seq (its text goes with it: db.ts triggers). */
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
