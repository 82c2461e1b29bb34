/** Duration, clock and GUID formatting moved to renderer/shared/format.ts (the Service page uses them too). */
export { formatClock, formatMs, shortGuid } from '../../shared/format';

/** The service's JWKS URL (spec 4.1 #3) under a sandbox base URL: the contract derives it. */
export { derivedJwksUrl as jwksUrlOf } from '../../../electron/contract/schemas/service-paths';
