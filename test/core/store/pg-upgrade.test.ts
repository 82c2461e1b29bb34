/**
 * A team hub's PostgreSQL database written by an older console (issue 30 item 4; pg-schema.ts):
 * a version-1 database with events in it is upgraded in place when a hub opens it, its rows
 * kept, callbacks given their environment (version 2), the repeat check's index (version 3) and
 * the routes table (version 4) made; a database newer than the console is refused, untouched.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openPgEventStore } from '../../../electron/core/store';
import { PG_EVENT_COLUMNS } from '../../../electron/core/store/event-columns';
import { MIGRATIONS, PG_SCHEMA_VERSION } from '../../../electron/core/store/pg-schema';
import { toRow } from '../../../electron/core/store/records';
import { postgresForTests } from '../../support/postgres-tests';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

const cluster = postgresForTests();
afterAll(() => removeTempDirs());

/** A database as a version-1 console left it: its schema and three events in its columns. */
async function versionOne(url: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('CREATE TABLE dets_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    await db.query(MIGRATIONS[0]!);
    await db.query("INSERT INTO dets_meta VALUES ('schema_version', '1')");
    const columns = PG_EVENT_COLUMNS.filter((c) => c.since.pg === 1);
    const events = [
      callback({ environment: { id: 'env-stg', name: 'Staging' }, obj: 'old-cb' }),
      notification({ transaction_id: 'Old-TX-1' }),
      callback({ obj: 'no-env' }),
    ];
    for (const [i, e] of events.entries()) {
      const { row } = toRow({ id: `e${String(i + 1).padStart(12, '0')}`, ...e }, i + 1, 262_144);
      await db.query(
        `INSERT INTO events (${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map((_, k) => `$${k + 1}`).join(', ')})`,
        columns.map((c) => row[c.place]),
      );
    }
    await db.query("SELECT setval(pg_get_serial_sequence('events', 'seq'), 3)");
  } finally {
    await db.end();
  }
}

async function one<T>(url: string, sql: string): Promise<T> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql)).rows[0] as T;
  } finally {
    await db.end();
  }
}

describe('a PostgreSQL database written by an older console', () => {
  it('is upgraded in place when a hub opens it, every row kept', async () => {
    const url = await cluster().database('from_v1');
    await versionOne(url);
    const store = await openPgEventStore(url, { dataDir: tempDir(), events: new EventHub() });
    try {
      expect(await one(url, "SELECT value FROM dets_meta WHERE key = 'schema_version'")).toEqual({
        value: String(PG_SCHEMA_VERSION),
      });
      expect((await store.query({ limit: 10 })).total).toBe(3);
      // Version 2: the old callback's environment from its record.
      const staged = await store.query({ environment: 'env-stg' });
      expect(staged.events.map((e) => e.obj)).toEqual(['old-cb']);
      // Version 3: an old accepted notification is found by the new index, in any case.
      const again = await store.append(notification({ transaction_id: 'old-tx-1' }), {
        durable: true,
        repeatCheck: true,
      });
      expect(again.outcome).toBe('repeat');
      expect(again.id).toBe('e000000000004');
      expect(
        await one(url, "SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'events_tx_accepted'"),
      ).toEqual({ n: 1 });
      // Version 4: the routes table.
      expect(await one(url, "SELECT to_regclass('team_routes') IS NOT NULL AS made")).toEqual({ made: true });
    } finally {
      await store.close();
    }
  });

  it('refuses a database newer than this console, and changes nothing in it', async () => {
    const url = await cluster().database('from_future');
    await versionOne(url);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query(`UPDATE dets_meta SET value = '${PG_SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    await db.end();
    await expect(openPgEventStore(url, { dataDir: tempDir(), events: new EventHub() })).rejects.toThrow(
      `The database has schema version ${PG_SCHEMA_VERSION + 1}, newer than this console's ${PG_SCHEMA_VERSION}: upgrade the console.`,
    );
    expect(await one(url, "SELECT to_regclass('team_routes') IS NULL AS untouched")).toEqual({
      untouched: true,
    });
    expect(await one(url, 'SELECT count(*)::int AS n FROM events')).toEqual({ n: 3 });
  });
});
