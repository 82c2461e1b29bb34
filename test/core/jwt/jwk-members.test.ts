/**
 * base64url only for a JWK's binary members (issue 24 item 11; RFC 7518 §6.3.1, RFC 7515 §2):
 * a key whose n is written in standard base64 (`+`, `/`, `=`) is refused by every intake, the
 * same way: a JWKS (left out, named), a pasted JWK, the sandbox's registration, a private JWK's
 * import (without quoting a secret character). Node's own decoder reads such an n without a
 * word, which is how the bank and the inspector used to verify with a key the sandbox refuses.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleError } from '../../../electron/contract/errors';
import { JWK_BINARY_MEMBERS, jwkMemberProblem } from '../../../electron/core/jwt/jwk-members';
import { keySetFromJwk, keySetFromJwks } from '../../../electron/core/jwt/key-source';
import { readPrivateKey } from '../../../electron/core/keys/private-key';
import { checkRegistrableJwk } from '../../../electron/core/sandbox/jwk-rules';
import { rsaKeyPair } from '../../support/rsa-pair';

/** The same octets in standard base64 with padding (RFC 4648 §4). */
const standard = (b64url: string) => Buffer.from(b64url, 'base64url').toString('base64');

let privateJwk: Record<string, string>;
let publicKey: KeyObject;

beforeAll(() => {
  const pair = rsaKeyPair({ modulusLength: 2048 });
  publicKey = pair.publicKey;
  privateJwk = pair.privateKey.export({ format: 'jwk' }) as Record<string, string>;
});

const pub = (over: Record<string, unknown> = {}) => ({
  kty: 'RSA',
  n: privateJwk.n,
  e: privateJwk.e,
  kid: 'std',
  use: 'sig',
  ...over,
});

function thrown(fn: () => unknown): ConsoleError | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err as ConsoleError;
  }
}

describe('jwkMemberProblem', () => {
  it('keeps base64url members, and says which member is not, with the character and the rule', () => {
    expect(jwkMemberProblem(pub())).toBeNull();
    const n = standard(privateJwk.n as string);
    // A 256-octet modulus always needs one '=' of padding in standard base64.
    expect(n.endsWith('=')).toBe(true);
    // Node reads it as the same key: nothing but this rule tells them apart.
    const lax = createPublicKey({ key: { kty: 'RSA', n, e: privateJwk.e }, format: 'jwk' });
    expect(lax.equals(publicKey)).toBe(true);
    expect(jwkMemberProblem(pub({ n }))).toMatch(
      /^n is not base64url: .* at position \d+; JWK members are base64url without padding \(RFC 7518 §6\.3\.1, RFC 7515 §2\)$/,
    );
    expect(jwkMemberProblem(pub({ e: 'AQAB=' }))).toMatch(/^e is not base64url: '=' padding/);
    expect(jwkMemberProblem(pub({ e: 'AQ+B' }))).toMatch(/^e is not base64url: '\+' \(standard base64/);
    expect(jwkMemberProblem(pub({ x5t: 'a/b' }))).toMatch(/^x5t is not base64url: '\/'/);
    expect(jwkMemberProblem(pub({ e: '' }))).toMatch(/^e is an empty string/);
    expect(jwkMemberProblem(pub({ n: 42 }))).toMatch(/^n is not a string/);
    expect(JWK_BINARY_MEMBERS).toEqual(['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi', 'x5t', 'x5t#S256']);
  });

  it('never quotes a character of a private member', () => {
    const d = `${(privateJwk.d as string).slice(0, 10)}+${(privateJwk.d as string).slice(11)}`;
    const problem = jwkMemberProblem({ ...privateJwk, d });
    expect(problem).toMatch(/^d is not base64url: it holds a character outside the base64url alphabet/);
    expect(problem).not.toContain('+');
    expect(problem).not.toMatch(/position/);
  });
});

describe('every intake refuses a standard-base64 n', () => {
  it('a JWKS (the bank endpoints, the inspector, the conformance runner) leaves the key out and names why', () => {
    const set = keySetFromJwks(
      { keys: [pub({ n: standard(privateJwk.n as string) })] },
      { source: 'jwks-url', url: 'http://127.0.0.1:9/jwks.json' },
    );
    expect(set.kids).toEqual([]);
    expect(set.rejected).toEqual([
      { kid: 'std', reason: expect.stringMatching(/^key kid=std: n is not base64url: /) },
    ]);
    expect(set.lookup('std').message).toMatch(/it was left out: key kid=std: n is not base64url/);
  });

  it('a pasted JWK is refused (KEY_INVALID)', () => {
    const err = thrown(() => keySetFromJwk(pub({ n: standard(privateJwk.n as string) })));
    expect(err?.code).toBe('KEY_INVALID');
    expect(err?.message).toMatch(/^key kid=std: n is not base64url: /);
  });

  it("the sandbox's registration refuses it naming the member, by the same words", async () => {
    await expect(
      checkRegistrableJwk(pub({ n: standard(privateJwk.n as string) }), 'data'),
    ).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/^data: n is not base64url: .*\(RFC 7518 §6\.3\.1, RFC 7515 §2\)$/),
    });
    await expect(checkRegistrableJwk(pub({ e: 'AQAB=' }), 'data')).rejects.toMatchObject({
      message: expect.stringMatching(/^data: e is not base64url: '=' padding/),
    });
  });

  it('a private JWK import refuses a standard-base64 member, quoting nothing of it', () => {
    for (const member of ['n', 'd', 'qi'] as const) {
      const text = JSON.stringify({ ...privateJwk, [member]: standard(privateJwk[member] as string) });
      const err = thrown(() => readPrivateKey(text));
      expect(err?.code).toBe('KEY_INVALID');
      expect(err?.message).toMatch(new RegExp(`^the private JWK's ${member} is not base64url: `));
      if (member !== 'n') expect(err?.message).not.toMatch(/[+/=]/);
    }
    expect(readPrivateKey(JSON.stringify(privateJwk)).bits).toBe(2048);
  });
});
