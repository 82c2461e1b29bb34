/**
 * The writer steps aside for the event loop (writer-protocol.ts YIELD): in a small batch nobody waits for
 * (callbacks at light load) it sleeps after every few rows, so a callback that arrives meanwhile
 * gets the core; a large batch (a busy event loop) and a durable one (its callers are waiting)
 * run at once. Whether the event loop is then answered sooner is the bench's to measure
 * (docs/benchmarks.md); this asserts the rule and that every row is stored either way.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { PENDING_ID, toRow } from '../../../electron/core/store/records';
import { DEFAULT_RETENTION } from '../../../electron/core/store/sqlite-store';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { ROWS_PER_INSERT } from '../../../electron/core/store/sql';
import { WriterClient } from '../../../electron/core/store/writer';
import { YIELD } from '../../../electron/core/store/writer-protocol';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const rowsOf = (events: ReturnType<typeof callback>[]) =>
  events.map((e) => toRow({ ...e, id: PENDING_ID } as EventDetail, 0, 64 * 1024).row);

describe('the writer makes room for the event loop', () => {
  it('pauses every YIELD.everyRows rows of a small non-durable batch, never in a large or a durable one', async () => {
    // A pause follows each multi-row insert at once (the rows go into SQLite ROWS_PER_INSERT at a time).
    expect(ROWS_PER_INSERT % YIELD.everyRows).toBe(0);
    const dir = tempDir();
    const setup = await openEventStore({ dataDir: dir, events: new EventHub() });
    await setup.close(); // the database exists, migrated
    const client = new WriterClient(path.join(dir, 'console.db'), DEFAULT_RETENTION);
    try {
      const small = YIELD.upToBatch;
      const light = await client.request({
        type: 'commit',
        rows: rowsOf(Array.from({ length: small }, (_, i) => callback({ path: `/user_auth?light=${i}` }))),
        durable: false,
      });
      expect(light.ok).toBe(true);
      // A pause after every group of rows but the last (nothing is left to make room for).
      expect(light.yields).toBe(Math.ceil(small / YIELD.everyRows) - 1);

      const busy = await client.request({
        type: 'commit',
        rows: rowsOf(Array.from({ length: small + 1 }, (_, i) => callback({ path: `/user_auth?busy=${i}` }))),
        durable: false,
      });
      expect(busy.ok).toBe(true);
      expect(busy.yields).toBe(0);

      const durable = await client.request({
        type: 'commit',
        rows: rowsOf(Array.from({ length: 20 }, () => notification())),
        durable: true,
      });
      expect(durable.ok).toBe(true);
      expect(durable.yields).toBe(0);

      // Every row of all three batches is stored, in order.
      expect(busy.firstSeq).toBe(light.firstSeq! + small);
      expect(durable.firstSeq).toBe(busy.firstSeq! + small + 1);
    } finally {
      await client.close();
    }
    const store = await openEventStore({ dataDir: dir, events: new EventHub() });
    try {
      expect((await store.query({ kind: 'callback' })).total).toBe(2 * YIELD.upToBatch + 1);
      expect((await store.query({ kind: 'notification' })).total).toBe(20);
    } finally {
      await store.close();
    }
  });
});
