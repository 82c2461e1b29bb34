/**
 * `generateKeyPairSync('rsa', …)` for tests, with the pair handed back as fresh copies made
 * from its DER encodings: a test that exports a just-generated key as JWK could otherwise hang
 * its fork forever on Node 20 (the JWK export holds the key's mutex while it allocates, and a
 * GC finalizing the generation job takes the same mutex; seen once in CI). The product reads
 * generated keys the same way (electron/core/jwt/rsa.ts publicRsaJwk).
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  type RSAKeyPairKeyObjectOptions,
} from 'node:crypto';

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
