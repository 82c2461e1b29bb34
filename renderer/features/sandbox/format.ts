/** Duration, clock and GUID formatting moved to renderer/shared/format.ts (the Service page uses them too). */
export { formatClock, formatMs, shortGuid } from '../../shared/format';

/** The service's JWKS URL (spec 4.1 #3) under a sandbox base URL. */
export function jwksUrlOf(base: string): string {
  return `${base.replace(/\/+$/, '')}/api/v1/.well-known/jwks.json`;
}
