/**
 * Times in words: durations ("4 min", "2 h 5 min") and a claim's time relative to now
 * ("expires in 4 min", "expired 3 min ago", "issued 2 min ago"). Locale rendering of dates is
 * the UI's job; the core gives ISO 8601 and these phrases.
 */
import { MILLISECONDS_THRESHOLD } from './policy';

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;
const YEAR = 365.25 * DAY;

/**
 * A duration in seconds in words, rounded to what a person needs.
 *
 * @example
 * formatDuration(45) // "45 s"
 * formatDuration(270) // "4 min 30 s"
 * formatDuration(3900) // "1 h 5 min"
 */
export function formatDuration(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  if (s < MINUTE) return `${s} s`;
  if (s < HOUR) {
    const m = Math.floor(s / MINUTE);
    const rest = s % MINUTE;
    return m < 10 && rest > 0 ? `${m} min ${rest} s` : `${Math.round(s / MINUTE)} min`;
  }
  if (s < 2 * DAY) {
    const h = Math.floor(s / HOUR);
    const m = Math.round((s % HOUR) / MINUTE);
    return m > 0 && m < 60 ? `${h} h ${m} min` : `${Math.round(s / HOUR)} h`;
  }
  if (s < 2 * YEAR) return `${Math.round(s / DAY)} days`;
  return `${Math.round(s / YEAR)} years`;
}

/** "in 4 min" or "3 min ago" or "now", for a difference `deltaSeconds` = then - now. */
export function relativeTo(deltaSeconds: number): string {
  if (Math.abs(deltaSeconds) < 0.5) return 'now';
  const d = formatDuration(deltaSeconds);
  return deltaSeconds > 0 ? `in ${d}` : `${d} ago`;
}

export type TimeClaimName = 'iat' | 'exp' | 'nbf';

/**
 * The claim's meaning relative to now, in its own verb.
 *
 * @example
 * describeClaimTime('exp', -180) // "expired 3 min ago"
 * describeClaimTime('exp', 240) // "expires in 4 min"
 * describeClaimTime('iat', -120) // "issued 2 min ago"
 */
export function describeClaimTime(name: TimeClaimName, deltaSeconds: number): string {
  const rel = relativeTo(deltaSeconds);
  const future = deltaSeconds > 0;
  switch (name) {
    case 'exp':
      return rel === 'now' ? 'expires now' : future ? `expires ${rel}` : `expired ${rel}`;
    case 'iat':
      return rel === 'now' ? 'issued now' : `issued ${rel}`;
    case 'nbf':
      return rel === 'now' ? 'becomes valid now' : future ? `becomes valid ${rel}` : `became valid ${rel}`;
  }
}

/** The unit a NumericDate is in: RFC 7519 says seconds; > 1e11 is taken as milliseconds. */
export function timeUnit(value: number): 's' | 'ms' {
  return Math.abs(value) > MILLISECONDS_THRESHOLD ? 'ms' : 's';
}

/** ISO 8601 for a time in milliseconds, or null when no Date can hold it. */
export function isoOrNull(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The calendar year a number of seconds since the epoch falls in, for "as seconds it would be…". */
export function yearOfSeconds(seconds: number): string {
  const d = new Date(seconds * 1000);
  if (!Number.isNaN(d.getTime())) return `the year ${d.getUTCFullYear()}`;
  return `about ${Math.round(seconds / YEAR + 1970).toLocaleString('en-US')} AD`;
}
