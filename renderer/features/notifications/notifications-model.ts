import type { EventSummary } from '../../../electron/contract/schemas/events';

export const ROUTES = ['pay-in', 'pay-out', 'transfer'] as const;
export type Route = (typeof ROUTES)[number];
export const OUTCOMES = ['accepted', 'repeat', 'rejected'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The notification route ("pay-in") of a stored path ("/api/svc/notify/pay-in"). */
export function routeOf(path: string | null): string {
  if (!path) return '—';
  const clean = path.split('?')[0] ?? path;
  return clean.slice(clean.lastIndexOf('/') + 1) || clean;
}

/** One row of the feed: a single notification, or (grouped) every notification of one transaction_id. */
export interface FeedRow {
  key: string;
  event: EventSummary;
  /** How many notifications carried this transaction_id (1 when not grouped). */
  count: number;
}

export function toRows(list: readonly EventSummary[]): FeedRow[] {
  return list.map((event) => ({ key: event.id, event, count: 1 }));
}

/**
 * Repeats grouped by transaction_id: one row per id, at the place of its newest notification, with
 * the count. Notifications without a transaction_id (rejected bodies) stay rows of their own.
 */
export function groupRepeats(list: readonly EventSummary[]): FeedRow[] {
  const rows: FeedRow[] = [];
  const byId = new Map<string, FeedRow>();
  for (const event of list) {
    const tx = event.transaction_id;
    if (!tx) {
      rows.push({ key: event.id, event, count: 1 });
      continue;
    }
    const row = byId.get(tx);
    if (row) row.count += 1;
    else {
      const created = { key: `tx:${tx}`, event, count: 1 };
      byId.set(tx, created);
      rows.push(created);
    }
  }
  return rows;
}

/**
 * The events a selection of rows stands for: a grouped row is every notification of its
 * transaction_id (its repeats are what a scenario folds into `duplicates`); an ungrouped row is
 * its own. In list order.
 */
export function eventsOfRows(
  rowEventIds: readonly string[],
  events: readonly EventSummary[],
  grouped: boolean,
): string[] {
  if (!grouped || rowEventIds.length === 0) return [...rowEventIds];
  const ids = new Set(rowEventIds);
  const txs = new Set(events.flatMap((e) => (ids.has(e.id) && e.transaction_id ? [e.transaction_id] : [])));
  return events
    .filter((e) => ids.has(e.id) || (e.transaction_id !== null && txs.has(e.transaction_id)))
    .map((e) => e.id);
}
