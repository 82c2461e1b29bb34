/**
 * `generateKeyPairSync('rsa', …)` for tests, with the pair handed back as fresh copies made
 * from its DER encodings: a test that exports a just-generated key as JWK could otherwise hang
 * its fork forever on Node 20 (the JWK export holds the key's mutex while it allocates, and a
 * GC finalizing the generation job takes the same mutex; seen once in CI). The product reads
 * generated keys the same way (electron/core/jwt/rsa.ts publicRsaJwk). {@link jwkOf} is jose's
 * exportJWK for the keys jose's generateKeyPair makes, read from such a copy.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  type RSAKeyPairKeyObjectOptions,
  type webcrypto,
} from 'node:crypto';
import type { JWK } from 'jose';

export function rsaKeyPair(options: RSAKeyPairKeyObjectOptions): {
  publicKey: KeyObject;
  privateKey: KeyObject;
} {
  const pair = generateKeyPairSync('rsa', options);
  return {
    publicKey: createPublicKey({
      key: pair.publicKey.export({ type: 'spki', format: 'der' }),
      type: 'spki',
      format: 'der',
    }),
    privateKey: createPrivateKey({
      key: pair.privateKey.export({ type: 'pkcs8', format: 'der' }),
      type: 'pkcs8',
      format: 'der',
    }),
  };
}

/** A copy of `key` made from its DER encoding: it shares nothing with the job that generated it. */
function copyOf(key: KeyObject): KeyObject {
  return key.type === 'private'
    ? createPrivateKey({ key: key.export({ type: 'pkcs8', format: 'der' }), type: 'pkcs8', format: 'der' })
    : createPublicKey({ key: key.export({ type: 'spki', format: 'der' }), type: 'spki', format: 'der' });
}

/** jose's exportJWK (the key's members only) for a key jose or node:crypto just generated. */
export function jwkOf(key: KeyObject | { readonly type: string }): JWK {
  const k = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
  return copyOf(k).export({ format: 'jwk' }) as JWK;
}
