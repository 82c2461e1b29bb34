import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { EventQuery, EventSummary } from '../../../electron/contract/schemas/events';
import { refreshHead, type Feed } from '../../../renderer/data/event-feed';
import { contractApi } from '../support/contract-api';
import { summary } from '../support/fake-events';

const id = (seq: number) => `e${String(seq).padStart(12, '0')}`;
/** The seq-th stored event, arrived at `second` (not always in store order). */
const ev = (seq: number, second: number) =>
  summary({ id: id(seq), at: new Date(Date.UTC(2026, 0, 1) + second * 1000).toISOString() });

function setup(listed: EventSummary[], total: number, answer: (q: EventQuery) => EventSummary[]) {
  const client = new QueryClient();
  const key = ['events', 'feed', 'notification', { kind: 'notification', failed: true }];
  client.setQueryData<Feed>(key, { pages: [{ events: listed, total }], pageParams: [undefined] });
  const query = vi.fn(async (q: EventQuery) => {
    const events = answer(q);
    return { events: events.slice(0, q.limit ?? 100), total: events.length };
  });
  const { api } = contractApi({ events: { query } });
  const feed = () => client.getQueryData<Feed>(key)!.pages[0]!;
  return { client, key, api, query, feed };
}

describe('refreshHead: a filtered live list catches up by id, not by time', () => {
  it('asks for what was stored after the highest id listed and lists an event that arrived earlier but was committed later', async () => {
    // Listed: 12 (arrived at 30 s) and 11 (at 29 s). Stored since: 13, which arrived at 20 s
    // (a notification that waited for its commit): asking "since 30 s" would never show it.
    const { client, key, api, query, feed } = setup([ev(12, 30), ev(11, 29)], 2, (q) =>
      q.after === id(12) ? [ev(13, 20)] : [],
    );
    await refreshHead(api, client, key, { kind: 'notification', failed: true }, 1000);
    expect(query).toHaveBeenCalledWith({ kind: 'notification', failed: true, after: id(12), limit: 500 });
    expect(query.mock.calls[0]![0]).not.toHaveProperty('since');
    expect(feed().events.map((e) => e.id)).toContain(id(13));
    expect(feed().total).toBe(3);
  });

  it('after a gap filled by time, still asks after the highest id, not the first row', async () => {
    // A filled gap is shown by time: 20 (at 50 s) above 21 (at 40 s).
    const { client, key, api, query } = setup([ev(20, 50), ev(21, 40), ev(19, 39)], 3, () => []);
    await refreshHead(api, client, key, { kind: 'notification', failed: true }, 1000);
    expect(query.mock.calls[0]![0].after).toBe(id(21));
  });

  it('more than a page stored since: the newest page becomes the list and the total adds every one of them', async () => {
    const many = Array.from({ length: 600 }, (_, i) => ev(1000 - i, 1000 - i));
    const { client, key, api, feed } = setup([ev(5, 5), ev(4, 4)], 40, () => many);
    await refreshHead(api, client, key, { kind: 'notification', failed: true }, 1000);
    expect(feed().events).toHaveLength(500);
    expect(feed().events[0]!.id).toBe(id(1000));
    expect(feed().total).toBe(640);
  });
});
