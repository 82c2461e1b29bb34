import type { EventDetail, EventSummary } from '../../../electron/contract/schemas/events';
import { CALLBACK_BUDGET_MS } from '../../../electron/contract/schemas/inspector';

/** Spec 4.2: the bank answers each callback within 1 second (the core's `budget` verdict). */
export const BUDGET_MS = CALLBACK_BUDGET_MS;
/** Fixed row height of the list (px): the virtualizer never measures. */
export const CALLBACK_ROW_HEIGHT = 30;

/**
 * A failed callback: a check failed, or the request was refused (404, 405, 413, 431, …). The
 * row's mark; the "Failed only" filter is the store's `failed`, the same rule in SQL (reader.ts).
 */
export function isFailed(e: EventSummary): boolean {
  return e.failed_check !== null || (e.status !== null && e.status >= 400);
}

/** "/user_auth" from a path that may carry a query. */
export function routeOf(path: string | null): string {
  if (!path) return '—';
  return path.split('?')[0] ?? path;
}

/** Histogram buckets (upper bounds, ms); the last one is "over 1 s". */
export const LATENCY_BUCKETS = [50, 100, 200, 300, 500, 750, 1_000, Infinity] as const;

export function latencyHistogram(list: EventSummary[]): { label: string; upper: number; count: number }[] {
  const counts = LATENCY_BUCKETS.map(() => 0);
  for (const e of list) {
    if (e.duration_ms === null) continue;
    const i = LATENCY_BUCKETS.findIndex((b) => e.duration_ms! <= b);
    counts[i] = (counts[i] ?? 0) + 1;
  }
  return LATENCY_BUCKETS.map((upper, i) => ({
    upper,
    count: counts[i] ?? 0,
    label: upper === Infinity ? '>1 s' : upper >= 1_000 ? '≤1 s' : `≤${upper}`,
  }));
}

/** The X-Session-ID the callback carried, if any. */
export function sessionIdOf(detail: EventDetail): string | null {
  const header = Object.entries(detail.request?.headers ?? {}).find(
    ([k]) => k.toLowerCase() === 'x-session-id',
  );
  return header?.[1] ?? null;
}
