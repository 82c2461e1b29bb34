/**
 * The retention of acknowledged notifications, the user's setting (issue 12 item 3), on a real
 * profile database: it trims only acknowledged notifications by its rule, never anything else,
 * removes nothing until confirmed, persists across a restart, and refuses bad values naming
 * the field.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { EventHub } from '../../../electron/core/event-hub';
import { blankEvent, type EventStore, openEventStore } from '../../../electron/core/store';
import { openDatabase } from '../../../electron/core/store/db';
import { createNotificationRetention } from '../../../electron/core/store/notification-retention';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const NOW = Date.UTC(2026, 5, 1, 12, 0);
const DAY = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/** 10 acknowledged notifications (accepted and repeats) one a day, and every other kind, old and new. */
async function fill(store: EventStore): Promise<void> {
  for (let d = 9; d >= 0; d--)
    await store.append(
      notification({
        at: iso(NOW - d * DAY - 1000),
        transaction_id: `TX-${d}`,
        outcome: d % 3 ? 'accepted' : 'repeat',
      }),
      { durable: true },
    );
  for (const ms of [NOW - 20 * DAY, NOW - 1000]) {
    await store.append(notification({ at: iso(ms), outcome: 'rejected', status: 400 }), { durable: true });
    await store.append(callback({ at: iso(ms) }), { durable: true });
    await store.append(callback({ at: iso(ms), token: null, failed_check: 'present', status: 401 }), {
      durable: true,
    });
    await store.append({ ...blankEvent('exchange', iso(ms)), path: 'http://127.0.0.1/x' }, { durable: true });
    await store.append({ ...blankEvent('trace', iso(ms)), path: 'sandbox.notify' }, { durable: true });
  }
}

function counts(dataDir: string): Record<string, number> {
  const db = openDatabase(dataDir);
  try {
    const rows = db.prepare('SELECT class, count(*) AS n FROM events GROUP BY class').all();
    const stats = db.prepare('SELECT class, count FROM class_stats').all();
    const out: Record<string, number> = {};
    for (const r of rows) out[String(r.class)] = Number(r.n);
    // The retention bookkeeping agrees with the rows.
    for (const s of stats) expect(Number(s.count), String(s.class)).toBe(out[String(s.class)] ?? 0);
    return out;
  } finally {
    db.close();
  }
}

/** A profile with fill()'s events, its store and its retention setting (clock at NOW). */
async function profile(dataDir = tempDir()) {
  const store = await openEventStore({ dataDir, events: new EventHub() });
  const retention = createNotificationRetention({ dataDir, now: () => NOW, log: () => undefined });
  const close = async () => {
    await retention.close();
    await store.close();
  };
  return { dataDir, store, retention, close };
}

const OTHERS = { rejected: 2, callback: 2, refused: 2, exchange: 2, trace: 2 };

describe('notification retention', () => {
  it('keeps every one by default; a change removes nothing until confirmed, and reports what it would remove', async () => {
    const { dataDir, store, retention, close } = await profile();
    await fill(store);
    expect(retention.get()).toEqual({ rule: { mode: 'keep' }, notifications: 10 });
    expect(await retention.apply()).toBe(0);

    const preview = await retention.set({ rule: { mode: 'days', days: 3 } });
    expect(preview).toEqual({
      rule: { mode: 'keep' },
      applied: false,
      removal: { count: 7, oldest_at: iso(NOW - 9 * DAY - 1000), newest_at: iso(NOW - 3 * DAY - 1000) },
    });
    expect(counts(dataDir)).toEqual({ ack: 10, ...OTHERS });
    expect(retention.get().rule).toEqual({ mode: 'keep' });
    await close();
  });

  it('keep N days: removes only acknowledged notifications older than that, never other kinds', async () => {
    const { dataDir, store, retention, close } = await profile();
    await fill(store);
    const done = await retention.set({ rule: { mode: 'days', days: 3 }, confirm: true });
    expect(done).toMatchObject({ rule: { mode: 'days', days: 3 }, applied: true, removal: { count: 7 } });
    expect(counts(dataDir)).toEqual({ ack: 3, ...OTHERS });
    const kept = await store.query({ kind: 'notification', outcome: 'accepted', limit: 100 });
    expect(kept.events.map((e) => e.transaction_id).sort()).toEqual(['TX-1', 'TX-2']);
    expect(store.hasTransaction('tx-0')).toBe(true);
    expect(store.hasTransaction('tx-5')).toBe(false);
    await close();
  });

  it('keep the last N: keeps the newest N, persists across a restart and keeps holding as notifications arrive', async () => {
    const first = await profile();
    const { dataDir } = first;
    await fill(first.store);
    await first.retention.set({ rule: { mode: 'last', count: 4 }, confirm: true });
    expect(counts(dataDir)).toEqual({ ack: 4, ...OTHERS });
    await first.close();

    // A restart: a new store and a new setting handle read the rule back.
    const { store, retention, close } = await profile(dataDir);
    expect(retention.get()).toEqual({ rule: { mode: 'last', count: 4 }, notifications: 4 });
    for (let i = 0; i < 3; i++)
      await store.append(notification({ at: iso(NOW), transaction_id: `NEW-${i}` }), { durable: true });
    expect(await retention.apply()).toBe(3);
    expect(counts(dataDir)).toEqual({ ack: 4, ...OTHERS });
    const newest = await store.query({ kind: 'notification', outcome: 'accepted', limit: 3 });
    expect(newest.events.map((e) => e.transaction_id)).toEqual(['NEW-2', 'NEW-1', 'NEW-0']);

    // Back to keep: confirmed, nothing more goes.
    expect(await retention.set({ rule: { mode: 'keep' }, confirm: true })).toMatchObject({
      applied: true,
      removal: { count: 0 },
    });
    for (let i = 0; i < 3; i++) await store.append(notification({ at: iso(NOW) }), { durable: true });
    expect(await retention.apply()).toBe(0);
    expect(counts(dataDir).ack).toBe(7);
    await close();
  });

  it('refuses bad values with a message naming the field, and keeps the rule in force', async () => {
    const { dataDir, store, retention, close } = await profile();
    await fill(store);
    await retention.set({ rule: { mode: 'days', days: 30 }, confirm: true });
    const bad: [unknown, RegExp][] = [
      [{ rule: { mode: 'days', days: 0 }, confirm: true }, /rule\.days/],
      [{ rule: { mode: 'days', days: 1.5 }, confirm: true }, /rule\.days/],
      [{ rule: { mode: 'last' }, confirm: true }, /rule\.count/],
      [{ rule: { mode: 'last', count: -3 }, confirm: true }, /rule\.count/],
      [{ rule: { mode: 'forever' }, confirm: true }, /rule\.mode/],
      [{ rule: { mode: 'keep' }, confirm: 'yes' }, /confirm/],
      [{}, /rule/],
    ];
    for (const [input, field] of bad) {
      const err = await retention.set(input).catch((e: unknown) => e);
      expect(err, JSON.stringify(input)).toBeInstanceOf(ConsoleError);
      expect((err as ConsoleError).code).toBe('BAD_ARGUMENT');
      expect((err as ConsoleError).message).toMatch(field);
    }
    expect(retention.get()).toEqual({ rule: { mode: 'days', days: 30 }, notifications: 10 });
    expect(counts(dataDir)).toEqual({ ack: 10, ...OTHERS });

    // A stored value this console cannot read counts as keep: it removes nothing.
    const db = openDatabase(dataDir);
    db.prepare(
      'UPDATE meta SET value = \'{"mode":"last","count":0}\' WHERE key = \'notification_retention\'',
    ).run();
    db.close();
    expect(retention.get().rule).toEqual({ mode: 'keep' });
    expect(await retention.apply()).toBe(0);
    await close();
  });
});
