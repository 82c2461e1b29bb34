/**
 * `generateKeyPairSync('rsa', …)` for tests, with the pair handed back as unshared copies
 * (electron/core/jwt/rsa.ts unsharedCopy): a test that exports a just-generated key as JWK could
 * otherwise hang its fork forever on Node 20 (the JWK export holds the key's mutex while it
 * allocates, and a GC finalizing the generation job takes the same mutex; seen once in CI).
 * {@link jwkOf} is jose's exportJWK for the keys jose's generateKeyPair makes, read the same way.
 */
import { generateKeyPairSync, KeyObject, type RSAKeyPairKeyObjectOptions, type webcrypto } from 'node:crypto';
import type { JWK } from 'jose';
import { unsharedCopy } from '../../electron/core/jwt/rsa';

export function rsaKeyPair(options: RSAKeyPairKeyObjectOptions): {
  publicKey: KeyObject;
  privateKey: KeyObject;
} {
  const pair = generateKeyPairSync('rsa', options);
  return { publicKey: unsharedCopy(pair.publicKey), privateKey: unsharedCopy(pair.privateKey) };
}

/** jose's exportJWK (the key's members only) for a key jose or node:crypto just generated. */
export function jwkOf(key: KeyObject | { readonly type: string }): JWK {
  const k = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
  return unsharedCopy(k).export({ format: 'jwk' }) as JWK;
}
