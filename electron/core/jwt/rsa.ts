import { base64url } from 'jose';

/**
 * Size of an RSA modulus given as base64url (a JWK's `n`), in bits.
 *
 * @example
 * modulusBits(jwk.n) // 2048
 */
export function modulusBits(n: string): number {
  const bytes = base64url.decode(n);
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] as number));
}
