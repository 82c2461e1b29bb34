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

/** A GUID shortened for headings; the full one is always a click (copy) away. */
export function shortGuid(guid: string): string {
  return guid.length > 13 ? `${guid.slice(0, 8)}…` : guid;
}

/** The service's JWKS URL (spec 4.1 #3) under a sandbox base URL. */
export function jwksUrlOf(base: string): string {
  return `${base.replace(/\/+$/, '')}/api/v1/.well-known/jwks.json`;
}
