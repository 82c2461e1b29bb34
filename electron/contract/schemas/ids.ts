/**
 * GUIDs (counterparty_guid, jwk_guid, a notification's transaction_id), written once for every
 * layer: the service's GUIDs are UUID-shaped, 8-4-4-4-12 hexadecimal digits, in either case
 * (spec 2.2, 4.1; the sandbox stores them in lower case).
 */
import { z } from 'zod';

/** The pattern without anchors or flags, to build a search (`new RegExp(GUID_SOURCE, 'g')`). */
export const GUID_SOURCE = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** Exactly one GUID, nothing around it. */
export const GUID_PATTERN = new RegExp(`^${GUID_SOURCE}$`);

/**
 * Whether `value` is exactly one GUID.
 *
 * @example
 * isGuid('3F2B8C1E-9A4D-4E7B-8C2F-1D5E6A7B8C9D'); // true
 * isGuid('3f2b8c1e'); // false
 */
export function isGuid(value: unknown): value is string {
  return typeof value === 'string' && GUID_PATTERN.test(value);
}

/** A GUID field of a method's input. */
export const Guid = z.string().regex(GUID_PATTERN, 'must be a GUID');
