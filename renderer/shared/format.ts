/** "45 s", "5 min", "1 h 30 min", "2 d 3 h": a lifetime at a glance. */
export function formatDuration(totalSeconds: number): string {
  const sign = totalSeconds < 0 ? '−' : '';
  let s = Math.abs(Math.round(totalSeconds));
  const d = Math.floor(s / 86_400);
  s -= d * 86_400;
  const h = Math.floor(s / 3_600);
  s -= h * 3_600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts =
    d > 0
      ? [`${d} d`, h ? `${h} h` : '']
      : h > 0
        ? [`${h} h`, m ? `${m} min` : '']
        : m > 0
          ? [`${m} min`, s ? `${s} s` : '']
          : [`${s} s`];
  return sign + parts.filter(Boolean).join(' ');
}

/** The local wall-clock time of an ISO instant, or null when it is not one. */
export function formatLocal(iso: string | null): string | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : new Date(t).toLocaleString();
}

/** "412 ms", "1.35 s": a duration against the 1 s budget. */
export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** The local time of day of an ISO instant ("14:03:27"), or the input when it is not one. */
export function formatClock(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleTimeString();
}

/**
 * The local time of day with milliseconds ("14:03:27.120"): a ladder at `--time-scale` waits
 * less than a second between attempts. The input as is when it is not an instant.
 */
export function formatClockMs(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  return `${d.toLocaleTimeString()}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** A GUID shortened for headings; the full one is always a click (copy) away. */
export function shortGuid(guid: string): string {
  return guid.length > 13 ? `${guid.slice(0, 8)}…` : guid;
}
