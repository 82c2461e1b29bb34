/**
 * RSA keys the runtime cannot verify with (issue 24 item 11): OpenSSL refuses an exponent over
 * 64 bits with a modulus over 3072 bits, and answers "does not verify" for every signature of
 * such a key. The rule of electron/core/jwt/rsa.ts names that limit, and every intake refuses
 * such a key by it: a JWKS (left out, named), a pasted JWK or PEM, the sandbox's registration, a
 * private key's import (never "damaged"). The first test measures the limit on the runtime the
 * tests run on, so the rule's numbers cannot drift from it unseen.
 */
import { constants, sign, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleError } from '../../../electron/contract/errors';
import { keySetFromJwk, keySetFromJwks, keySetFromPem } from '../../../electron/core/jwt/key-source';
import {
  RUNTIME_MAX_EXPONENT_BITS,
  RUNTIME_SMALL_MODULUS_BITS,
  rsaJwkProblem,
  rsaKeyObjectProblem,
  rsaRuleProblem,
} from '../../../electron/core/jwt/rsa';
import { readPrivateKey } from '../../../electron/core/keys/private-key';
import { checkRegistrableJwk } from '../../../electron/core/sandbox/jwk-rules';
import { rsaKeyWithExponent, type ExponentKey } from './rsa-exponent-key';

const BIG_E = (1n << 64n) + 1n; // 65 bits, odd: inside FIPS 186-5's 2^16 < e < 2^256
const E_64_BITS = (1n << 64n) - 59n; // the largest 64-bit prime: 64 bits exactly
const LIMIT =
  /the RSA public exponent is a 65-bit number: a public exponent above 2\^64 with a modulus over 3072 bits \(this one has 3080\) cannot be used by this runtime's OpenSSL \([^)]+\), which refuses to verify with it$/;

let atLimit: ExponentKey; // 3072 bits, e = 2^64 + 1: usable
let over: ExponentKey; // 3080 bits, e = 2^64 + 1: not usable
let wideOk: ExponentKey; // 3088 bits, a 64-bit e: usable

beforeAll(() => {
  atLimit = rsaKeyWithExponent(3072, BIG_E);
  over = rsaKeyWithExponent(3080, BIG_E);
  wideOk = rsaKeyWithExponent(3088, E_64_BITS);
}, 120_000);

function verifiesItself(k: ExponentKey, pss: boolean): boolean {
  const data = Buffer.from('a signing input');
  const opts = pss ? { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } : {};
  const signature = sign('sha256', data, { key: k.privateKey, ...opts });
  return verify('sha256', data, { key: k.publicKey, ...opts }, signature);
}

const publicJwk = (k: ExponentKey, kid: string) => ({ kty: 'RSA', n: k.jwk.n, e: k.jwk.e, kid, use: 'sig' });

describe('the runtime limit, measured here', () => {
  it('node:crypto verifies with 3072 bits and a 65-bit e, and with 3088 bits and a 64-bit e, but not with 3080 bits and a 65-bit e', () => {
    expect(RUNTIME_SMALL_MODULUS_BITS).toBe(3072);
    expect(RUNTIME_MAX_EXPONENT_BITS).toBe(64);
    for (const pss of [false, true]) {
      expect(verifiesItself(atLimit, pss)).toBe(true);
      expect(verifiesItself(wideOk, pss)).toBe(true);
      // The key signs (the private operation takes any e) but never verifies: every token it
      // signed would look "signed by another key".
      expect(verifiesItself(over, pss)).toBe(false);
    }
  });

  it('the rule draws the line where the runtime does', () => {
    expect(rsaRuleProblem(3072, BIG_E)).toBeNull();
    expect(rsaRuleProblem(3088, E_64_BITS)).toBeNull();
    expect(rsaRuleProblem(3080, BIG_E)).toMatch(LIMIT);
    expect(rsaJwkProblem(over.jwk.n as string, over.jwk.e as string)).toMatch(LIMIT);
    expect(rsaKeyObjectProblem(over.publicKey)).toMatch(LIMIT);
    expect(rsaKeyObjectProblem(atLimit.publicKey)).toBeNull();
    // Over 16384 bits OpenSSL verifies with no key at all (OPENSSL_RSA_MAX_MODULUS_BITS).
    expect(rsaRuleProblem(16392, 65537n)).toMatch(
      /^the RSA modulus has 16392 bits: a modulus over 16384 bits cannot be used by this runtime's OpenSSL/,
    );
    expect(rsaRuleProblem(16384, 65537n)).toBeNull();
  });
});

describe('every intake refuses such a key by the named rule', () => {
  it('a JWKS leaves it out and names it; the usable key beside it stays', () => {
    const set = keySetFromJwks(
      { keys: [publicJwk(over, 'over'), publicJwk(atLimit, 'at-limit')] },
      { source: 'jwks-url', url: 'http://127.0.0.1:9/jwks.json' },
    );
    expect(set.kids).toEqual(['at-limit']);
    expect(set.rejected).toHaveLength(1);
    expect(set.rejected[0]?.kid).toBe('over');
    expect(set.rejected[0]?.reason).toMatch(/^key kid=over: the RSA public exponent is a 65-bit number: /);
    expect(set.rejected[0]?.reason).toMatch(LIMIT);
    // A token naming it fails kid, saying why the key was left out: never "signed by another key".
    const lookup = set.lookup('over');
    expect(lookup.found).toBe(false);
    expect(lookup.message).toMatch(/it was left out: key kid=over: the RSA public exponent/);
  });

  it('a pasted JWK and a pasted PEM are refused (KEY_INVALID) naming the limit', async () => {
    const jwk = (() => {
      try {
        keySetFromJwk(publicJwk(over, 'over'));
        return null;
      } catch (err) {
        return err as ConsoleError;
      }
    })();
    expect(jwk?.code).toBe('KEY_INVALID');
    expect(jwk?.message).toMatch(LIMIT);
    const pem = over.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    await expect(keySetFromPem(pem)).rejects.toMatchObject({
      code: 'KEY_INVALID',
      message: expect.stringMatching(LIMIT),
    });
  });

  it("the sandbox's registration refuses it (400 naming the rule), and takes the key at the limit", async () => {
    await expect(checkRegistrableJwk(publicJwk(over, 'over'), 'jwk')).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(
        /^jwk: the key breaks the RSA key rules: the RSA public exponent is a 65-bit number: /,
      ),
    });
    await expect(checkRegistrableJwk(publicJwk(atLimit, 'ok'), 'jwk')).resolves.toMatchObject({ kid: 'ok' });
  });

  it('a private key import refuses it naming the limit, as PEM and as JWK, never calling it damaged', () => {
    for (const text of [
      over.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      over.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
      JSON.stringify(over.jwk),
    ]) {
      let error: ConsoleError | null = null;
      try {
        readPrivateKey(text);
      } catch (err) {
        error = err as ConsoleError;
      }
      expect(error?.code).toBe('KEY_INVALID');
      expect(error?.message).toMatch(
        /breaks the RSA key rules: the RSA public exponent is a 65-bit number: /,
      );
      expect(error?.message).toMatch(LIMIT);
      expect(error?.message).not.toMatch(/damaged/);
    }
    expect(readPrivateKey(JSON.stringify(atLimit.jwk)).bits).toBe(3072);
  });
});
