/**
 * Key expiry as days. `expires` is the last day a key may sign (YYYY-MM-DD), counted in UTC so
 * the desktop app, `serve` and the CLI agree wherever they run.
 */

import { defaultKeyExpiry } from '../../contract/schemas/keys';

const DAY_MS = 86_400_000;

/** The UTC calendar day of `ms`, YYYY-MM-DD. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Whole days from today (UTC) until `day`: 0 on the day itself, negative once it has passed.
 *
 * @example
 * daysUntil('2030-01-02', Date.UTC(2030, 0, 1, 23, 0)); // 1
 */
export function daysUntil(day: string, nowMs: number): number {
  const today = Date.parse(`${utcDay(nowMs)}T00:00:00Z`);
  return Math.round((Date.parse(`${day}T00:00:00Z`) - today) / DAY_MS);
}

/**
 * The last valid day of a key made now with the default validity (DEFAULT_KEY_DAYS, UTC): the
 * contract's computation, which the pages use to announce the date too.
 *
 * @example
 * defaultExpiry(Date.UTC(2026, 0, 1)); // '2027-01-01'
 */
export const defaultExpiry: (nowMs: number) => string = defaultKeyExpiry;

/** True once the last valid day has passed. */
export function isExpired(day: string | null, nowMs: number): boolean {
  return day !== null && daysUntil(day, nowMs) < 0;
}
