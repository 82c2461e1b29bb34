/**
 * The RSA key rules, written once (DESIGN.md "Bank endpoints"): wherever a key comes from (a
 * JWKS, an onboarding, a PUT or POST jwk, an import, a generated key), its modulus has at least
 * 2048 bits and its public exponent is odd and strictly between 2^16 and 2^256 (FIPS 186-5
 * §5.4). Anything else is refused naming the rule.
 *
 * Threat model: a small exponent (e = 3) or a short modulus makes signatures forgeable
 * (Bleichenbacher's e = 3 attack on lax PKCS#1 v1.5 verifiers; 1024-bit moduli are within
 * reach of factoring), and an even exponent is not a valid RSA key at all. Such a key is never
 * used to verify anything.
 *
 * One more rule is the runtime's, not FIPS's (issue 24 item 11): some keys the rules above allow
 * cannot be used by the OpenSSL this console runs on (see {@link runtimeRsaProblem}). Such a key
 * would make every token it signed fail `signature` as "signed by another key", so it is refused
 * at intake naming the limit, like any other rule, from every source.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { MIN_RSA_BITS } from '../../contract/schemas/rsa-rules';

// The numbers the contract's schemas also need (keys.generate's bits) live in the contract.
export { MIN_RSA_BITS, RSA_KEY_RULES } from '../../contract/schemas/rsa-rules';
/** The public exponent must be greater than this (2^16)… */
export const MIN_RSA_EXPONENT = 1n << 16n;
/** …and smaller than this (2^256). */
export const MAX_RSA_EXPONENT = 1n << 256n;

function bytesOf(b64url: string): Uint8Array {
  return Buffer.from(b64url, 'base64url');
}

/**
 * Size of an RSA modulus given as base64url (a JWK's `n`), in bits.
 *
 * @example
 * modulusBits(jwk.n) // 2048
 */
export function modulusBits(n: string): number {
  const bytes = bytesOf(n);
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] as number));
}

/** A JWK's `e` (base64url, big-endian) as a bigint. */
export function exponentOf(e: string): bigint {
  const bytes = bytesOf(e);
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

function exponentText(e: bigint): string {
  return e < 1n << 64n ? e.toString() : `a ${e.toString(2).length}-bit number`;
}

/**
 * The limits of the OpenSSL under Node (OpenSSL 3.0, `rsa_ossl_public_decrypt`): a modulus over
 * OPENSSL_RSA_SMALL_MODULUS_BITS (3072) with an exponent over OPENSSL_RSA_MAX_PUBEXP_BITS (64
 * bits) is refused ("bad e value"), and so is a modulus over OPENSSL_RSA_MAX_MODULUS_BITS
 * (16384). Node's `crypto.verify` then answers false, exactly as for a forged signature.
 * Measured on Node 20.20.2 / OpenSSL 3.0.19: e = 2^64 + 1 verifies with 3072 bits and fails
 * with 3080 and 4096 bits; e = 2^64 - 59 verifies with 3088 bits (test/core/jwt/rsa-runtime.test.ts
 * keeps these numbers honest on whatever runtime the tests run on); a valid signature of a
 * 16381-bit multi-prime key verifies, one of a 16998-bit key does not (measured once: such keys
 * take too long to make in a test).
 */
export const RUNTIME_SMALL_MODULUS_BITS = 3072;
/** See {@link RUNTIME_SMALL_MODULUS_BITS}: the exponent's bit length allowed above it. */
export const RUNTIME_MAX_EXPONENT_BITS = 64;
/** See {@link RUNTIME_SMALL_MODULUS_BITS}: the largest modulus OpenSSL verifies with. */
export const RUNTIME_MAX_MODULUS_BITS = 16384;

const bitLength = (v: bigint): number => (v === 0n ? 0 : v.toString(2).length);

/**
 * Why this runtime cannot verify with an RSA key that the FIPS rules allow, or null when it can.
 *
 * @example
 * runtimeRsaProblem(4096, (1n << 64n) + 1n) // "the RSA public exponent is a 65-bit number: …"
 */
export function runtimeRsaProblem(bits: number, e: bigint): string | null {
  const openssl = `this runtime's OpenSSL (${process.versions.openssl ?? 'unknown version'})`;
  if (bits > RUNTIME_MAX_MODULUS_BITS) {
    return `the RSA modulus has ${bits} bits: a modulus over ${RUNTIME_MAX_MODULUS_BITS} bits cannot be used by ${openssl}, which refuses to verify with it`;
  }
  if (bits > RUNTIME_SMALL_MODULUS_BITS && bitLength(e) > RUNTIME_MAX_EXPONENT_BITS) {
    return `the RSA public exponent is ${exponentText(e)}: a public exponent above 2^${RUNTIME_MAX_EXPONENT_BITS} with a modulus over ${RUNTIME_SMALL_MODULUS_BITS} bits (this one has ${bits}) cannot be used by ${openssl}, which refuses to verify with it`;
  }
  return null;
}

/**
 * Why an RSA key with modulus `bits` bits and exponent `e` breaks the key rules (FIPS 186-5, then
 * what this runtime can verify with: {@link runtimeRsaProblem}), or null when it keeps them.
 * The message names the rule.
 *
 * @example
 * rsaRuleProblem(1024, 65537n) // "the RSA modulus has 1024 bits; at least 2048 are required"
 * rsaRuleProblem(2048, 3n)     // "the RSA public exponent is 3; it must be odd and between 2^16 and 2^256 (FIPS 186-5)"
 */
export function rsaRuleProblem(bits: number, e: bigint): string | null {
  if (bits < MIN_RSA_BITS) return `the RSA modulus has ${bits} bits; at least ${MIN_RSA_BITS} are required`;
  if (e % 2n === 0n || e <= MIN_RSA_EXPONENT || e >= MAX_RSA_EXPONENT) {
    return `the RSA public exponent is ${exponentText(e)}; it must be odd and between 2^16 and 2^256 (FIPS 186-5)`;
  }
  return runtimeRsaProblem(bits, e);
}

/** {@link rsaRuleProblem} for a JWK's base64url `n` and `e`. */
export function rsaJwkProblem(n: string, e: string): string | null {
  return rsaRuleProblem(modulusBits(n), exponentOf(e));
}

/** {@link rsaRuleProblem} for a node:crypto RSA key (public or private). */
export function rsaKeyObjectProblem(key: KeyObject): string | null {
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') {
    return `the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not RSA`;
  }
  const details = key.asymmetricKeyDetails ?? {};
  return rsaRuleProblem(details.modulusLength ?? 0, details.publicExponent ?? 0n);
}

/**
 * A copy of an asymmetric key made from its DER encoding (SPKI for a public key, PKCS#8 for a
 * private one), sharing nothing with the key it was made from. Take the JWK of a key just
 * generated (generateKeyPair, jose's generateKeyPair through KeyObject.from) from such a copy.
 *
 * Why: Node 20's `export({ format: 'jwk' })` holds the key's mutex while it builds the JWK's
 * members, and a garbage collection in that moment may finalize the job that generated the pair,
 * whose destructor takes the same mutex: the thread then waits on itself forever (seen once, a
 * test suite hung in `ExportJWKRsaKey` → GC → `~KeyGenJob`). The DER exports hold no lock, and
 * a key made from one shares its mutex with no generation job.
 *
 * @example
 * const jwk = unsharedCopy(pair.privateKey).export({ format: 'jwk' });
 */
export function unsharedCopy(key: KeyObject): KeyObject {
  return key.type === 'private'
    ? createPrivateKey({ key: key.export({ type: 'pkcs8', format: 'der' }), type: 'pkcs8', format: 'der' })
    : createPublicKey({ key: key.export({ type: 'spki', format: 'der' }), type: 'spki', format: 'der' });
}

/**
 * The public JWK members (n, e) of an RSA public key just generated, read from an
 * {@link unsharedCopy} of it.
 *
 * @example
 * const { n, e } = publicRsaJwk(pair.publicKey);
 */
export function publicRsaJwk(publicKey: KeyObject): { n: string; e: string } {
  if (publicKey.type !== 'public') throw new TypeError('publicRsaJwk takes a public key');
  const jwk = unsharedCopy(publicKey).export({ format: 'jwk' });
  return { n: String(jwk.n), e: String(jwk.e) };
}
