/** A key's public part as a file (DESIGN.md "keys"): the spec's JWK (2.1), a JWKS, or SPKI PEM. */
import { createPublicKey } from 'node:crypto';
import type { z } from 'zod';
import type { ExportedKey, ExportKeyInput } from '../../contract/schemas/keys';
import type { StoredKey } from './key-file';
import { fileStem, specJwk } from './key-rules';

/**
 * The public part of `key` in `format`, with a file name and MIME type; never a private member.
 *
 * @example
 * exportPublicKey(key, 'jwks'); // {text: '{"keys": [...]}\n', filename: 'bank-2026.jwks.json', mime: 'application/jwk-set+json'}
 */
export function exportPublicKey(
  key: StoredKey,
  format: z.output<typeof ExportKeyInput>['format'],
): z.output<typeof ExportedKey> {
  const stem = fileStem(key.kid);
  const jwk = specJwk({ kty: 'RSA', n: key.public_jwk.n, e: key.public_jwk.e }, key.kid, key.alg);
  switch (format) {
    case 'jwk':
      return {
        text: `${JSON.stringify(jwk, null, 2)}\n`,
        filename: `${stem}.jwk.json`,
        mime: 'application/jwk+json',
      };
    case 'jwks':
      return {
        text: `${JSON.stringify({ keys: [jwk] }, null, 2)}\n`,
        filename: `${stem}.jwks.json`,
        mime: 'application/jwk-set+json',
      };
    case 'pem': {
      const pem = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' }).export({
        type: 'spki',
        format: 'pem',
      });
      return { text: String(pem), filename: `${stem}.pub.pem`, mime: 'application/x-pem-file' };
    }
  }
}
