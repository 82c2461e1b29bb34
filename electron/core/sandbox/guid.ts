/**
 * GUIDs in paths and bodies (counterparty_guid, jwk_guid). The service's GUIDs are UUID-shaped
 * (8-4-4-4-12 hex digits); they are compared case-insensitively and stored in lower case, so
 * an upper-case GUID from a bank's configuration finds the same counterparty.
 */
import { randomUUID } from 'node:crypto';
import { isGuid } from '../common';
import { badRequest } from './errors';

/**
 * The canonical (lower-case) GUID, or a BAD_ARGUMENT error naming the parameter.
 *
 * @example
 * parseGuid('counterparty_guid', 'abc') // throws: counterparty_guid "abc" is not a GUID …
 */
export function parseGuid(name: string, value: unknown): string {
  if (isGuid(value)) return value.toLowerCase();
  const shown =
    typeof value === 'string'
      ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)
      : value === undefined
        ? 'missing'
        : `not a string (${typeof value})`;
  return fail(name, shown);
}

function fail(name: string, shown: string): never {
  throw badRequest(
    `${name} ${shown === 'missing' ? 'is missing' : `${shown} is not a GUID`}: expected 8-4-4-4-12 hexadecimal digits, e.g. 3f2b8c1e-9a4d-4e7b-8c2f-1d5e6a7b8c9d`,
    name,
  );
}

/** A fresh GUID (UUID v4, lower case). */
export const newGuid = (): string => randomUUID();
