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
  /** Grouped: every notification of the transaction_id, oldest first (the copy taken, then its repeats). */
  members?: EventSummary[];
}

/**
 * A row as the feed shows it (issue 27 item 3): a notification, a transaction's group, or (the
 * group open) one of its notifications under it. `id` is the row's place for the keyboard
 * cursor: the event's id, or `m:<event id>` for a member (its group's row already holds the
 * newest event's id).
 */
export interface ShownRow {
  id: string;
  kind: 'single' | 'group' | 'member';
  row: FeedRow;
  /** The notification this row is (a group: its newest). */
  event: EventSummary;
  /** A member's group row id, so x on a member ticks its group. */
  groupId?: string;
}

export function toRows(list: readonly EventSummary[]): FeedRow[] {
  return list.map((event) => ({ key: event.id, event, count: 1 }));
}

/** The transaction a notification belongs to, as the grouping compares it (any case), or null. */
export function groupKeyOf(event: EventSummary): string | null {
  return event.transaction_id ? event.transaction_id.toLowerCase() : null;
}

/**
 * Repeats grouped by transaction_id: one row per id, at the place of its newest notification, with
 * the count and its members. Notifications without a transaction_id (rejected bodies) stay rows of
 * their own. transaction_ids are compared case-insensitively, as the bank endpoints do (DESIGN.md:
 * a repeat is the same transaction_id in any case).
 */
export function groupRepeats(list: readonly EventSummary[]): FeedRow[] {
  const rows: FeedRow[] = [];
  const byId = new Map<string, FeedRow>();
  for (const event of list) {
    const tx = groupKeyOf(event);
    if (!tx) {
      rows.push({ key: event.id, event, count: 1 });
      continue;
    }
    const row = byId.get(tx);
    if (row) {
      row.count += 1;
      row.members!.unshift(event);
    } else {
      const created = { key: `tx:${tx}`, event, count: 1, members: [event] };
      byId.set(tx, created);
      rows.push(created);
    }
  }
  return rows;
}

/** How a group's notifications were taken: how many accepted, repeats, rejected. */
export function outcomesOf(members: readonly EventSummary[]): Record<Outcome, number> {
  const counts: Record<Outcome, number> = { accepted: 0, repeat: 0, rejected: 0 };
  for (const m of members) if (m.outcome) counts[m.outcome] += 1;
  return counts;
}

/**
 * The rows the feed shows: each row, and under a group that is open (`isOpen(key)`) its
 * notifications, oldest first.
 */
export function shownRows(rows: readonly FeedRow[], isOpen: (key: string) => boolean): ShownRow[] {
  const shown: ShownRow[] = [];
  for (const row of rows) {
    const grouped = row.members !== undefined && row.count > 1;
    shown.push({ id: row.event.id, kind: grouped ? 'group' : 'single', row, event: row.event });
    if (grouped && isOpen(row.key)) {
      for (const m of row.members!) {
        shown.push({ id: `m:${m.id}`, kind: 'member', row, event: m, groupId: row.event.id });
      }
    }
  }
  return shown;
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
  const txs = new Set(
    events.flatMap((e) => (ids.has(e.id) ? [groupKeyOf(e)] : [])).filter((t) => t !== null),
  );
  return events.filter((e) => ids.has(e.id) || txs.has(groupKeyOf(e) ?? '')).map((e) => e.id);
}
