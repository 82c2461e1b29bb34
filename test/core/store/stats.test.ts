import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore, type EventStore } from '../../../electron/core/store';
import { callback, notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const open: EventStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe('event store: stats (the lists’ counts and the rate chart)', () => {
  it('counts the matches, per failed check or outcome, and per whole clock-aligned bucket', async () => {
    const store = await openEventStore({ dataDir: tempDir(), events: new EventHub() });
    open.push(store);
    const base = Date.parse('2026-01-01T00:00:00Z');
    const at = (ms: number) => new Date(base + ms).toISOString();
    await store.append(notification({ at: at(100), transaction_id: 'A-1' }));
    await store.append(notification({ at: at(900), transaction_id: 'A-1', outcome: 'repeat' }));
    await store.append(notification({ at: at(1_500), transaction_id: null, outcome: 'rejected' }));
    await store.append(notification({ at: at(2_999), transaction_id: 'B-2' }));
    // In the bucket that holds `until`: partial, so not counted in the rate.
    await store.append(notification({ at: at(3_200), transaction_id: 'C-3' }));
    await store.append(callback({ at: at(1_000), failed_check: 'signature', status: 401 }));
    await store.append(callback({ at: at(1_100), failed_check: 'signature', status: 401 }));
    await store.append(callback({ at: at(1_200), failed_check: 'exp', status: 401 }));
    await store.append(callback({ at: at(1_300) }));
    await store.flush();

    const byCheck = await store.stats({ query: { kind: 'callback', failed: true }, by: 'failed_check' });
    expect(byCheck.total).toBe(3);
    expect(byCheck.groups).toEqual([
      { value: 'signature', count: 2 },
      { value: 'exp', count: 1 },
    ]);
    expect(byCheck.rate).toBeNull();

    const outcomes = await store.stats({ query: { kind: 'notification' }, by: 'outcome' });
    expect(outcomes.groups).toEqual([
      { value: 'accepted', count: 3 },
      { value: 'rejected', count: 1 },
      { value: 'repeat', count: 1 },
    ]);

    const rate = await store.stats({
      query: { kind: 'notification' },
      rate: { bucket_ms: 1_000, buckets: 4, until: at(3_500) },
    });
    expect(rate.total).toBe(5);
    expect(rate.rate).toEqual({ start: at(-1_000), bucket_ms: 1_000, counts: [0, 2, 1, 1] });

    // The text filter goes through the same search as events.query.
    const text = await store.stats({ query: { kind: 'notification', text: 'b-2' } });
    expect(text.total).toBe(1);
  });
});
