/**
 * The key store's rules on the stored list (DESIGN.md "keys"): a kid names one key, an expiry
 * lies ahead, at most one key is active. Pure functions of the list, tested on their own.
 */
import { ConsoleError } from '../../contract/errors';
import { Kid, type SigningAlg, type SpecJwk } from '../../contract/schemas/keys';
import { fieldProblem, firstIssueMessage } from '../common';
import { isExpired } from './expiry';
import type { StoredKey } from './key-file';
import type { RsaPublicParts } from './private-key';

/** Binds a sealed private key to its kid: a blob moved onto another kid does not open. */
export const aadFor = (kid: string) => `signing-key:${kid}`;

/** A string as JSON quotes it, for messages. */
export const quote = (s: string) => JSON.stringify(s);

/**
 * The spec's JWK (2.1): exactly alg, e, kid, kty, n, use, in that order.
 *
 * @example
 * specJwk({ kty: 'RSA', n, e: 'AQAB' }, 'bank-2026', 'RS256'); // {alg, e, kid, kty: 'RSA', n, use: 'sig'}
 */
export function specJwk(parts: RsaPublicParts, kid: string, alg: SigningAlg): SpecJwk {
  return { alg, e: parts.e, kid, kty: 'RSA', n: parts.n, use: 'sig' };
}

/**
 * A kid made safe for a file name.
 *
 * @example
 * fileStem('../bank key'); // '_._bank_key'
 */
export function fileStem(kid: string): string {
  return kid.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'key';
}

/** The stored key `kid`; NOT_FOUND names the known kids. */
export function findKey(keys: StoredKey[], kid: string): StoredKey {
  const key = keys.find((k) => k.kid === kid);
  if (!key) {
    const known =
      keys.length > 0 ? `known kids: ${keys.map((k) => quote(k.kid)).join(', ')}` : 'there are no keys yet';
    throw new ConsoleError('NOT_FOUND', `no signing key with kid ${quote(kid)} (${known})`, { kid });
  }
  return key;
}

/** BAD_ARGUMENT on `expires` when it is a day already past (the last day a key may sign). */
export function checkExpiresAhead(expires: string | null | undefined, nowMs: number): void {
  if (expires && isExpired(expires, nowMs)) {
    throw fieldProblem(
      'expires',
      `${expires} is in the past: give the last day the key may sign, today or later`,
    );
  }
}

/**
 * A valid kid no stored key has. Callers inside the core (rotation) skip the contract's
 * validation: the kid is checked here too.
 */
export function checkKidFree(keys: StoredKey[], kid: string): void {
  const valid = Kid.safeParse(kid);
  if (!valid.success) throw fieldProblem('kid', firstIssueMessage(valid.error, 'not a valid kid'));
  if (keys.some((k) => k.kid === kid)) {
    throw new ConsoleError('CONFLICT', `a key with kid ${quote(kid)} already exists: choose another kid`, {
      kid,
    });
  }
}

/**
 * Makes `kid` the only active key: the one active before becomes retired.
 *
 * @example
 * activateOnly(keys, 'next-key'); // 'next-key' active, the key that was active retired, others unchanged
 */
export function activateOnly(keys: StoredKey[], kid: string): StoredKey[] {
  return keys.map((k) =>
    k.kid === kid ? { ...k, status: 'active' } : k.status === 'active' ? { ...k, status: 'retired' } : k,
  );
}
