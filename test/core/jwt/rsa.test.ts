/**
 * The RSA key rules of electron/core/jwt/rsa.ts (DESIGN.md "Bank endpoints", FIPS 186-5 §5.4):
 * modulus of at least 2048 bits, public exponent odd and strictly between 2^16 and 2^256.
 */
import type { webcrypto } from 'node:crypto';
import { createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { generateKeyPair as joseGenerateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  exponentOf,
  MIN_RSA_BITS,
  modulusBits,
  publicRsaJwk,
  RSA_KEY_RULES,
  rsaJwkProblem,
  rsaKeyObjectProblem,
  rsaRuleProblem,
} from '../../../electron/core/jwt/rsa';

/** A big-endian unsigned integer as a JWK member (base64url, no leading zero bytes). */
function b64url(value: bigint): string {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Buffer.from(hex, 'hex').toString('base64url');
}

/** A modulus-shaped number of exactly `bits` bits (top bit set, odd). */
const modulusOf = (bits: number) => (1n << BigInt(bits - 1)) | 1n;

const EXPONENT_RULE = /it must be odd and between 2\^16 and 2\^256 \(FIPS 186-5\)$/;
const MODULUS_RULE = /at least 2048 are required$/;

describe('rsaRuleProblem', () => {
  it.each([
    ['e = 65537', 2048, 65537n],
    ['e = 2^16 + 1', 2048, (1n << 16n) + 1n],
    ['e = 2^256 - 1', 2048, (1n << 256n) - 1n],
    ['4096 bits', 4096, 65537n],
  ])('keeps %s', (_name, bits, e) => {
    expect(rsaRuleProblem(bits, e)).toBeNull();
  });

  it.each([
    ['e = 3', 3n, /the RSA public exponent is 3;/],
    ['e = 1', 1n, /the RSA public exponent is 1;/],
    ['an even e (65538)', 65538n, /the RSA public exponent is 65538;/],
    ['e = 2^16', 1n << 16n, /the RSA public exponent is 65536;/],
    ['e = 2^256 + 1', (1n << 256n) + 1n, /the RSA public exponent is a 257-bit number;/],
  ])('refuses %s naming the rule', (_name, e, what) => {
    const problem = rsaRuleProblem(2048, e);
    expect(problem).toMatch(what);
    expect(problem).toMatch(EXPONENT_RULE);
  });

  it('refuses 2047 bits and 1024 bits naming the rule', () => {
    expect(rsaRuleProblem(2047, 65537n)).toBe('the RSA modulus has 2047 bits; at least 2048 are required');
    expect(rsaRuleProblem(1024, 65537n)).toMatch(MODULUS_RULE);
  });

  it('states the rules in one line that names both halves', () => {
    expect(MIN_RSA_BITS).toBe(2048);
    expect(RSA_KEY_RULES).toMatch(/at least 2048 bits/);
    expect(RSA_KEY_RULES).toMatch(/odd public exponent between 2\^16 and 2\^256/);
  });
});

describe('rsaJwkProblem (a JWK’s base64url n and e)', () => {
  it('reads the sizes the way the rule needs them', () => {
    expect(modulusBits(b64url(modulusOf(2048)))).toBe(2048);
    expect(modulusBits(b64url(modulusOf(2047)))).toBe(2047);
    // A leading zero byte does not count as modulus bits.
    expect(
      modulusBits(
        Buffer.from([0, ...Buffer.from(b64url(modulusOf(2047)), 'base64url')]).toString('base64url'),
      ),
    ).toBe(2047);
    expect(exponentOf('AQAB')).toBe(65537n);
  });

  it.each([
    ['e = 65537, 2048 bits', modulusOf(2048), 65537n, null],
    ['e = 2^16 + 1, 4096 bits', modulusOf(4096), (1n << 16n) + 1n, null],
    ['e = 3', modulusOf(2048), 3n, EXPONENT_RULE],
    ['an even e', modulusOf(2048), 65538n, EXPONENT_RULE],
    ['e = 2^16', modulusOf(2048), 1n << 16n, EXPONENT_RULE],
    ['e = 2^256 + 1', modulusOf(2048), (1n << 256n) + 1n, EXPONENT_RULE],
    ['2047 bits', modulusOf(2047), 65537n, MODULUS_RULE],
  ] as const)('%s', (_name, n, e, rule) => {
    const problem = rsaJwkProblem(b64url(n), b64url(e));
    if (rule === null) expect(problem).toBeNull();
    else expect(problem).toMatch(rule);
  });
});

describe('rsaKeyObjectProblem (node:crypto keys)', () => {
  it('keeps a 2048-bit key with e = 65537, public or private', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(rsaKeyObjectProblem(privateKey)).toBeNull();
    expect(rsaKeyObjectProblem(publicKey)).toBeNull();
  });

  it('refuses e = 3 and 1024 bits, and says a non-RSA key is not RSA', () => {
    const e3 = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 3 });
    expect(rsaKeyObjectProblem(e3.publicKey)).toMatch(EXPONENT_RULE);
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(rsaKeyObjectProblem(short.privateKey)).toBe(
      'the RSA modulus has 1024 bits; at least 2048 are required',
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(rsaKeyObjectProblem(ec.publicKey)).toBe('the key is ec, not RSA');
  });
});

describe("publicRsaJwk (a generated key's n and e, read from a copy)", () => {
  it('gives the n and e of the key itself, for node:crypto and jose key pairs', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { n, e } = publicRsaJwk(publicKey);
    // Read back as a JWK, they are the same key; and the public half derived from the private one
    // gives the same members.
    expect(createPublicKey({ key: { kty: 'RSA', n, e }, format: 'jwk' }).equals(publicKey)).toBe(true);
    expect(publicRsaJwk(createPublicKey(privateKey))).toEqual({ n, e });
    expect(modulusBits(n)).toBe(2048);
    expect(e).toBe('AQAB');

    const jose = await joseGenerateKeyPair('PS256', { modulusLength: 2048, extractable: true });
    const joseKey = KeyObject.from(jose.publicKey as webcrypto.CryptoKey);
    const members = publicRsaJwk(joseKey);
    expect(createPublicKey({ key: { kty: 'RSA', ...members }, format: 'jwk' }).equals(joseKey)).toBe(true);
  });

  it('refuses a private key instead of exporting its secret members', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(() => publicRsaJwk(privateKey)).toThrow();
  });
});
