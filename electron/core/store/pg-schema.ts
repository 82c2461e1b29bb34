/**
 * The team hub's PostgreSQL schema (issue 30 item 4; DESIGN.md "Team hub"): the same events as
 * the profile's SQLite (sql.ts), one row each with the same indexed columns, the whole record as
 * JSON and the lower-cased search text under a `pg_trgm` index. Several hubs share one database,
 * so ids come from one sequence and every change of the schema runs under one advisory lock.
 */
import type { Pool, PoolClient } from 'pg';
import { addedColumnsDdl, createColumnsDdl } from './event-columns';

/** The schema version this console writes (a newer database is refused, never downgraded). */
export const PG_SCHEMA_VERSION = 4;

/** The channel a hub announces each committed event on (LISTEN/NOTIFY): the other hubs' live pages. */
export const PG_EVENTS_CHANNEL = 'dets_events';

/** The channel a hub announces a change of its routes on (core/team route-share-pg.ts). */
export const PG_ROUTES_CHANNEL = 'dets_routes';

/** The channel hubs hand each other routed requests and their outcomes on (route-share-pg.ts). */
export const PG_RELAY_CHANNEL = 'dets_relay';

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (its NOTIFY reference): the bound of
 * every channel here, the events' summaries and the relay's requests alike.
 */
export const PG_NOTIFY_MAX_BYTES = 7999;

/** One advisory lock key for the migration, so two hubs starting at once migrate once. */
const MIGRATION_LOCK = 7_300_030;

/** The schema by version (index 0: version 1); the columns of `events` come from event-columns.ts. */
export const MIGRATIONS: readonly string[] = [
  `CREATE EXTENSION IF NOT EXISTS pg_trgm;
   CREATE TABLE events (
     ${createColumnsDdl('pg', 1)}
   );
   CREATE INDEX events_kind ON events (kind, seq);
   CREATE INDEX events_class ON events (class, seq);
   CREATE INDEX events_at ON events (at_ms);
   CREATE INDEX events_path ON events (path);
   CREATE INDEX events_failed ON events (failed_check);
   CREATE INDEX events_tx ON events (tx_lower) WHERE tx_lower IS NOT NULL;
   CREATE INDEX events_search ON events USING gin (search gin_trgm_ops);
   CREATE TABLE event_counts (class TEXT PRIMARY KEY, n BIGINT NOT NULL);
   CREATE TABLE team_members (
     name TEXT PRIMARY KEY,
     role TEXT NOT NULL,
     token_sha256 TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL
   );`,
  // Version 2 (issue 26 item 1): the environment a callback belongs to, as the SQLite store has
  // it (sql.ts version 10), back-filled from the records that name one. \`json\`, not \`jsonb\`:
  // jsonb refuses a \u0000 a stored body may carry.
  `${addedColumnsDdl('pg', 2)}
   UPDATE events SET environment = record::json -> 'environment' ->> 'id'
     WHERE kind = 'callback' AND strpos(record, '"environment":{') > 0;
   CREATE INDEX events_environment ON events (environment, seq) WHERE environment IS NOT NULL;`,
  // Version 3: the repeat check of each commit (pg-commit.ts) reads only the accepted
  // notifications among its transaction_ids. Without an index of exactly those, the planner
  // (its statistics a batch behind) combined events_tx with a scan of every notification's
  // events_kind entry, so each commit grew slower with the table.
  `CREATE INDEX events_tx_accepted ON events (tx_lower) WHERE kind = 'notification' AND outcome = 'accepted';`,
  // Version 4 (issue 30, routes across hubs): each hub's own routes as the JSON list its
  // RelayHub lists, its name for the team's list, the backend pid of its listening connection
  // (gone from pg_stat_activity as soon as a killed hub's socket closes) and its last heartbeat.
  `CREATE TABLE team_routes (
     hub TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     pid INTEGER,
     routes TEXT NOT NULL,
     beat_ms BIGINT NOT NULL
   );`,
];

/**
 * Creates or upgrades the schema, once however many hubs start together.
 *
 * @example
 * const c = await pool.connect(); await migratePg(c); c.release();
 */
export async function migratePg(client: PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS dets_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const row = await client.query<{ value: string }>(
      "SELECT value FROM dets_meta WHERE key = 'schema_version'",
    );
    const version = row.rows[0] ? Number(row.rows[0].value) : 0;
    if (version > PG_SCHEMA_VERSION)
      throw new Error(
        `The database has schema version ${version}, newer than this console's ${PG_SCHEMA_VERSION}: upgrade the console.`,
      );
    for (let v = version; v < PG_SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
    await client.query(
      "INSERT INTO dets_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
      [String(PG_SCHEMA_VERSION)],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * {@link migratePg} on a connection of `pool` (for users of the database other than the event
 * store: the team's members).
 */
export async function migratePgSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await migratePg(client);
  } finally {
    client.release();
  }
}
