import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Environment } from '../../../electron/contract/schemas/service';

/** DESIGN.md "keys": rotate through the service's PUT endpoint before expiry; warn 30 days ahead. */
export const EXPIRY_WARNING_DAYS = 30;

/** none: no expiry set; ok: more than 30 days; soon: 0–30 days (today is the last day at 0); expired: past. */
export type ExpiryLevel = 'none' | 'ok' | 'soon' | 'expired';

export function expiryLevel(days: number | null): ExpiryLevel {
  if (days === null) return 'none';
  if (days < 0) return 'expired';
  return days <= EXPIRY_WARNING_DAYS ? 'soon' : 'ok';
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "in 12 days", "last day today", "expired 3 days ago", "no expiry". */
export function expiryWords(days: number | null): string {
  if (days === null) return 'no expiry';
  if (days < 0) return `expired ${plural(-days, 'day')} ago`;
  if (days === 0) return 'last day today';
  return `in ${plural(days, 'day')}`;
}

/**
 * The keys the header warns about: every active key, and the active environment's key whatever
 * its status, that expires within 30 days or has expired; the most urgent first.
 */
export function keysNeedingRotation(keys: KeyInfo[], env: Environment | null): KeyInfo[] {
  const watched = keys.filter((k) => k.status === 'active' || k.kid === env?.active_kid);
  return watched
    .filter((k) => {
      const level = expiryLevel(k.expires_in_days);
      return level === 'soon' || level === 'expired';
    })
    .sort((a, b) => (a.expires_in_days ?? 0) - (b.expires_in_days ?? 0));
}
