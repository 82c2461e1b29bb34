/**
 * The signature's length (issue 24 item 11; RFC 8017 §8.1.2 and §8.2.2 step 1): a signature
 * must be exactly as long as the modulus, k octets. A PS* signature whose first octet is zero,
 * sent with that octet stripped (k - 1 octets), is accepted by OpenSSL itself; the engine
 * refuses it, and the k - 1 and k + 1 forms of an RS* signature, naming the rule. Signatures
 * are made with node:crypto directly, keys by node:crypto's generator.
 */
import { constants, sign, verify, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyToken } from '../../../electron/core/jwt/engine';
import { keySetFromJwk } from '../../../electron/core/jwt/key-source';
import { signedParts, verifySignature } from '../../../electron/core/jwt/signature';
import { rsaKeyPair } from '../../support/rsa-pair';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };

let privateKey: KeyObject;
let publicKey: KeyObject;
let jwk: Record<string, unknown>;

beforeAll(() => {
  ({ privateKey, publicKey } = rsaKeyPair({ modulusLength: 2048 }));
  const pub = publicKey.export({ format: 'jwk' });
  jwk = { kty: 'RSA', n: pub.n, e: pub.e, kid: 'len' };
});

interface Signed {
  input: string;
  signature: Buffer;
}

/**
 * A token's signing input and a signature whose first octet is zero (about one in 256
 * signatures): the jti varies, and PSS is randomised anyway. Bounded at 5,000 tries (failing
 * that has odds below e^-19).
 */
function signatureWithLeadingZero(alg: 'PS256' | 'RS256'): Signed {
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 5000; i++) {
    const claims = { flow: 'sign-in', obj: 'DE001', sub: 'ops', iat: now - 5, exp: now + 300, jti: `t${i}` };
    const input = `${b64({ alg, kid: 'len', typ: 'JWT' })}.${b64(claims)}`;
    const signature = sign(
      'sha256',
      Buffer.from(input),
      alg === 'PS256' ? { key: privateKey, ...PSS } : privateKey,
    );
    if (signature[0] === 0) return { input, signature };
  }
  throw new Error('no signature with a leading zero octet in 5,000 tries');
}

const token = (s: Signed, signature: Buffer) => `${s.input}.${signature.toString('base64url')}`;

describe('a signature one octet short (its leading zero stripped)', () => {
  it('is accepted by OpenSSL for PS256 on its own: the reason the engine judges the length itself', () => {
    const s = signatureWithLeadingZero('PS256');
    const short = s.signature.subarray(1);
    expect(verify('sha256', Buffer.from(s.input), { key: publicKey, ...PSS }, short)).toBe(true);
  });

  it.each(['PS256', 'RS256'] as const)(
    '%s: refused by verifySignature naming RFC 8017; the full one verifies',
    async (alg) => {
      const s = signatureWithLeadingZero(alg);
      const full = signedParts(token(s, s.signature));
      const short = signedParts(token(s, s.signature.subarray(1)));
      expect(full?.signature).toHaveLength(256);
      expect(short?.signature).toHaveLength(255);
      expect(await verifySignature(full!, publicKey, alg, 'key kid=len')).toEqual({ ok: true });
      expect(await verifySignature(short!, publicKey, alg, 'key kid=len')).toEqual({
        ok: false,
        code: 'SIGNATURE_LENGTH',
        message: expect.stringMatching(
          /^the signature is 255 octets, but key kid=len has a 256-octet modulus: RFC 8017 \(§8\.1\.2 for PS\*, §8\.2\.2 for RS\*\) requires exactly 256 \(a signature whose leading zero octet was stripped is one octet short/,
        ),
      });
    },
  );

  it.each(['PS256', 'RS256'] as const)(
    '%s: the engine fails `signature` for k - 1 and k + 1 octets',
    async (alg) => {
      const s = signatureWithLeadingZero(alg);
      const set = keySetFromJwk(jwk);
      const judge = (t: string) =>
        verifyToken({
          token: t,
          header: 'X-Session-ID',
          keys: { kind: 'set', set },
          nowSeconds: Date.now() / 1000,
          mode: 'first-failure',
        });
      expect((await judge(token(s, s.signature))).ok).toBe(true);
      for (const [signature, octets] of [
        [s.signature.subarray(1), 255],
        [Buffer.concat([Buffer.alloc(1), s.signature]), 257],
      ] as const) {
        const v = await judge(token(s, signature));
        expect(v.failed).toBe('signature');
        expect(v.detail).toMatch(
          new RegExp(`^the signature is ${octets} octets, but key kid=len has a 256-octet modulus`),
        );
      }
    },
  );
});
