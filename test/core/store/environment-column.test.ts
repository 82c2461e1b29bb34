/**
 * The `environment` column (issue 26 item 1; sql.ts version 10, event-columns.ts): a profile
 * written by a console before it (schema version 9, callbacks naming their environment only in
 * the record) is migrated at open, its rows back-filled from their records; a read-only opener
 * of such a profile, which migrates nothing, filters by the record; the one column table is what
 * both dialects' DDL is made of; `store recover`'s page reader reads rows of both widths.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { openDatabase } from '../../../electron/core/store/db';
import {
  EVENT_COLUMN_TABLE,
  SQLITE_EVENT_COLUMNS,
  createColumnsDdl,
} from '../../../electron/core/store/event-columns';
import { scanEventPages } from '../../../electron/core/store/salvage';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../electron/core/store/sql';
import { callback, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/** The 19 columns of `events` before version 10, as that console's writer inserted them. */
const OLD_COLUMNS = SQLITE_EVENT_COLUMNS.filter((c) => c.since.sqlite === 1).map((c) => c.name);

/** A record as the old console stored it: the environment only inside it. */
function oldRecord(seq: number, environment: EventDetail['environment'], over: Partial<EventDetail> = {}) {
  return {
    id: `e${String(seq).padStart(12, '0')}`,
    ...callback({ at: new Date(Date.UTC(2026, 0, 1, 0, seq)).toISOString(), environment, ...over }),
  } as EventDetail;
}

/** A profile at schema version 9 holding `records` (and a row whose record is not JSON). */
function oldProfile(records: EventDetail[], broken: boolean): string {
  const dataDir = tempDir();
  const db = new Database(path.join(dataDir, 'console.db'));
  db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= 9)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_version VALUES (?, ?)').run(m.version, '2026-01-01T00:00:00Z');
  }
  const insert = db.prepare(
    `INSERT INTO events (${OLD_COLUMNS.join(', ')}) VALUES (${OLD_COLUMNS.map(() => '?').join(', ')})`,
  );
  records.forEach((r, i) => {
    const text = JSON.stringify(r);
    insert.run(
      ...[i + 1, r.at, Date.parse(r.at), 'callback', 'callback', '/user_auth', 'GET', 200, null, null],
      ...[null, null, 'customer-1', 'sub-1', 1, null, '127.0.0.1', text.length, text],
    );
  });
  if (broken) {
    // A damaged record (a torn write of an old engine): the migration must not fail on it.
    const text = '{"id":"e000000000099","kind":"callback","environment":{"id":"env-real"';
    insert.run(
      ...[99, '2026-01-02T00:00:00Z', 0, 'callback', 'callback', '/user_auth', 'GET', 200, null, null],
      ...[null, null, null, null, 1, null, null, text.length, text],
    );
  }
  db.close();
  return dataDir;
}

const SANDBOX = { id: 'sandbox', name: 'Sandbox' };
const REAL = { id: 'env-real', name: 'Bank staging' };

describe('the environment column on a profile written before it (schema version 9)', () => {
  it('is added and back-filled from each callback record at open; the filter then finds them', async () => {
    const dataDir = oldProfile(
      [
        oldRecord(1, SANDBOX),
        oldRecord(2, REAL),
        oldRecord(3, REAL, { failed_check: 'exp' }),
        oldRecord(4, null),
        oldRecord(5, undefined),
      ],
      true,
    );
    const store = await openEventStore({ dataDir, events: new EventHub(), log: () => undefined });
    try {
      expect((await store.query({})).total).toBe(6);
      const real = await store.query({ environment: 'env-real' });
      expect(real.events.map((e) => e.id)).toEqual(['e000000000003', 'e000000000002']);
      expect((await store.query({ environment: 'sandbox' })).total).toBe(1);
      // New callbacks get the column from the writer.
      await store.append(callback({ environment: REAL }), { durable: true });
      expect((await store.query({ environment: 'env-real' })).total).toBe(3);
    } finally {
      await store.close();
    }
    const db = new Database(path.join(dataDir, 'console.db'));
    const cols = db.prepare("SELECT name FROM pragma_table_info('events')").all() as { name: string }[];
    expect(cols.map((c) => c.name)).toEqual(SQLITE_EVENT_COLUMNS.map((c) => c.name));
    const version = db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number };
    expect(version.v).toBe(SCHEMA_VERSION);
    // The damaged record stays as it was, its column null: nothing lost, nothing invented.
    const damaged = db.prepare('SELECT environment, record FROM events WHERE seq = 99').get() as {
      environment: string | null;
      record: string;
    };
    expect(damaged.environment).toBeNull();
    expect(damaged.record).toMatch(/"environment":\{"id":"env-real"$/);
    db.close();
  });

  it('a read-only opener (events beside a running owner) filters by the record, migrating nothing', async () => {
    const dataDir = oldProfile([oldRecord(1, SANDBOX), oldRecord(2, REAL), oldRecord(3, REAL)], false);
    const reader = await openEventStore({ dataDir, events: new EventHub(), readOnly: true });
    try {
      expect((await reader.query({ environment: 'env-real' })).total).toBe(2);
      expect((await reader.query({ environment: 'sandbox', kind: 'callback' })).events[0]!.id).toBe(
        'e000000000001',
      );
      expect((await reader.stats({ query: { environment: 'env-real' } })).total).toBe(2);
    } finally {
      await reader.close();
    }
    const db = new Database(path.join(dataDir, 'console.db'));
    const cols = db.prepare("SELECT name FROM pragma_table_info('events')").all() as { name: string }[];
    expect(cols.map((c) => c.name)).not.toContain('environment');
    db.close();
  });

  it('store recover’s page reader reads the old rows (19 columns) and the new ones (20) of one file', async () => {
    const dataDir = oldProfile([oldRecord(1, SANDBOX), oldRecord(2, REAL)], false);
    const store = await openEventStore({ dataDir, events: new EventHub(), log: () => undefined });
    await store.append(callback({ environment: REAL }), { durable: true });
    await store.close();
    const file = path.join(dataDir, 'console.db');
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const found = [...scanEventPages(file, 4096)].map((e) => [e.id, e.environment?.id]);
    expect(found).toEqual([
      ['e000000000001', 'sandbox'],
      ['e000000000002', 'env-real'],
      ['e000000000003', 'env-real'],
    ]);
  });
});

describe('one column table for both dialects', () => {
  it('makes the SQLite table a fresh profile gets, column for column, type for type', () => {
    const dataDir = tempDir();
    openDatabase(dataDir).close();
    const db = new Database(path.join(dataDir, 'console.db'));
    const cols = db.prepare("SELECT name, type FROM pragma_table_info('events')").all() as {
      name: string;
      type: string;
    }[];
    db.close();
    expect(cols.map((c) => c.name)).toEqual(SQLITE_EVENT_COLUMNS.map((c) => c.name));
    expect(cols.map((c) => c.type)).toEqual(SQLITE_EVENT_COLUMNS.map((c) => c.sqlite!.split(' ')[0]));
    expect(fs.existsSync(path.join(dataDir, 'console.db'))).toBe(true);
  });

  it('gives every row place one column, and PostgreSQL every column SQLite has (plus the search text)', () => {
    expect(EVENT_COLUMN_TABLE.map((c) => c.place)).toEqual(EVENT_COLUMN_TABLE.map((_, i) => i));
    expect(createColumnsDdl('pg', 1)).toMatch(/^seq BIGSERIAL PRIMARY KEY,/);
    expect(createColumnsDdl('pg', 1)).toContain('search TEXT NOT NULL');
    expect(createColumnsDdl('pg', 1)).not.toContain('environment');
    expect(createColumnsDdl('sqlite', 1)).not.toContain('search');
  });
});
