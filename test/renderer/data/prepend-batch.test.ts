import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import { prependBatch, type Feed } from '../../../renderer/data/event-feed';

/** The seq-th stored event: its id and its time both in append order. */
const ev = (seq: number) =>
  ({
    id: `e${String(seq).padStart(12, '0')}`,
    at: new Date(Date.UTC(2026, 0, 1) + seq).toISOString(),
  }) as EventSummary;
const feed = (seqs: number[], total = seqs.length): Feed => ({
  pages: [{ events: seqs.map(ev), total }],
  pageParams: [undefined],
});
const ids = (f: Feed | undefined) => f!.pages.flatMap((p) => p.events.map((e) => Number(e.id.slice(1))));

describe('prependBatch', () => {
  it('prepends what is new, newest first, skips what is listed, and grows the total by the new', () => {
    const out = prependBatch(feed([5, 4, 3], 100), [ev(7), ev(6), ev(5)], 1000);
    expect(ids(out)).toEqual([7, 6, 5, 4, 3]);
    expect(out!.pages[0]!.total).toBe(102);
  });

  it('puts a gap filled after later arrivals back in order (a list shown again from the cache)', () => {
    // 9 and 10 arrived live while the store was asked what came after 5: it answers 8, 7, 6.
    const out = prependBatch(feed([10, 9, 5, 4], 50), [ev(9), ev(8), ev(7), ev(6)], 1000);
    expect(ids(out)).toEqual([10, 9, 8, 7, 6, 5, 4]);
    expect(out!.pages[0]!.total).toBe(53);
  });

  it('keeps at most maxLoaded', () => {
    const out = prependBatch(feed([3, 2, 1]), [ev(5), ev(4)], 4);
    expect(ids(out)).toEqual([5, 4, 3, 2]);
  });
});
