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
