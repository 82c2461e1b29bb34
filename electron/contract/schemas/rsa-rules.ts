/**
 * The RSA key rules' numbers and wording (DESIGN.md "Bank endpoints"; FIPS 186-5 §5.4). They live
 * in the contract, the layer everything may import, so the schema that bounds `keys.generate`'s
 * bits and the core's checks (electron/core/jwt/rsa.ts, which re-exports these) say one thing.
 */

/** Smallest RSA modulus accepted, in bits. */
export const MIN_RSA_BITS = 2048;

/** The rules in one line, for messages and docs. */
export const RSA_KEY_RULES =
  'an RSA key needs a modulus of at least 2048 bits and an odd public exponent between 2^16 and 2^256 (FIPS 186-5)';
