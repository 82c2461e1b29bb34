/**
 * RSA keys with any public exponent, made here from two primes of node:crypto's generatePrime
 * (Node's key generator takes only exponents that fit in a JavaScript number, and OpenSSL's
 * refuses many): n = p·q, d = e⁻¹ mod φ(n), the CRT members. Independent of jose and of the
 * console's own key code, so a test can hand the console the keys an attacker or an odd signer
 * would.
 */
import { createPrivateKey, createPublicKey, generatePrimeSync, type KeyObject } from 'node:crypto';

/** A non-negative integer as a JWK member: big-endian octets, base64url (RFC 7518 §6.3.1.1). */
export function b64uint(value: bigint): string {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Buffer.from(hex, 'hex').toString('base64url');
}

function inverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [a % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error('not invertible');
  return ((s0 % m) + m) % m;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

export interface ExponentKey {
  /** The private JWK (n, e, d, p, q, dp, dq, qi). */
  jwk: Record<string, string>;
  privateKey: KeyObject;
  publicKey: KeyObject;
  bits: number;
}

/**
 * An RSA key of exactly `bits` bits (even) with public exponent `e` (odd). Bounded: at most 50
 * prime pairs are tried (each succeeds with probability about a half).
 *
 * @example
 * const k = rsaKeyWithExponent(4096, (1n << 64n) + 1n);
 */
export function rsaKeyWithExponent(bits: number, e: bigint): ExponentKey {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = generatePrimeSync(bits / 2, { bigint: true });
    const q = generatePrimeSync(bits / 2, { bigint: true });
    const n = p * q;
    const phi = (p - 1n) * (q - 1n);
    if (p === q || n.toString(2).length !== bits || gcd(e, phi) !== 1n) continue;
    const d = inverse(e, phi);
    const jwk = {
      kty: 'RSA',
      n: b64uint(n),
      e: b64uint(e),
      d: b64uint(d),
      p: b64uint(p),
      q: b64uint(q),
      dp: b64uint(d % (p - 1n)),
      dq: b64uint(d % (q - 1n)),
      qi: b64uint(inverse(q, p)),
    };
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    const publicKey = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
    return { jwk, privateKey, publicKey, bits };
  }
  throw new Error(`no ${bits}-bit key with e = ${e} in 50 attempts`);
}
