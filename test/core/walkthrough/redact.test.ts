/**
 * The evidence pack's redaction (issue 6: no private key, no user secret key, signatures
 * shortened), on a pack-shaped value salted with everything that must not get out: a private
 * JWK made by jose, a PEM private key, a customer's secret key as a member and inside recorded
 * JSON text, and real signed tokens alone, in a header and in a curl command.
 */
import { exportPKCS8, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { redactPack, shortenSignature } from '../../../electron/core/walkthrough/redact';
import { jwkOf } from '../../support/rsa-pair';

const SECRET = 'user-secret-key-Qx7vR2m9';

async function salted() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = jwkOf(privateKey);
  const pem = await exportPKCS8(privateKey);
  const token = await new SignJWT({ flow: 'sign-in', obj: 'DE89370400440532013000', sub: 'ops@bank.example' })
    .setProtectedHeader({ alg: 'RS256', kid: '54321', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
  const pack = {
    keys: [{ kid: '54321', public_jwk: { ...privateJwk, kid: '54321', alg: 'RS256', use: 'sig' } }],
    imported: { text: `here is the key:\n${pem}\nend` },
    tokens: { bank_jwt: { token, header: { alg: 'RS256' } } },
    exchanges: [
      {
        request: { headers: { 'CX-Authorization': token }, body: null },
        curl: `curl -sS -X POST 'https://svc/api/v1/…/jwk/authenticate' -H 'CX-Authorization: ${token}'`,
        response: { status: 200, body: JSON.stringify({ session_token: token }) },
      },
    ],
    sign_in: { user: { external_id: 'c-1', phone: '+4915112345678', key: SECRET } },
    events: [
      { response: { body: JSON.stringify({ external_id: 'c-1', phone: '+49', key: SECRET }) } },
      { response: { body: '{"external_id":"c-1","key":"<masked: 24 characters>"}' } },
    ],
  };
  return { pack, token, privateJwk };
}

describe('redactPack', () => {
  it('leaves no private key, no user secret key and no whole signature', async () => {
    const { pack, token, privateJwk } = await salted();
    const text = JSON.stringify(redactPack(pack));
    const out = JSON.parse(text) as typeof pack;

    // No JWK private member anywhere, and no PEM private key.
    expect(Object.keys(out.keys[0]!.public_jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) {
      expect(text).not.toContain(`"${member}":`);
      expect(text).not.toContain(String((privateJwk as Record<string, unknown>)[member]));
    }
    expect(text).not.toContain('PRIVATE KEY');
    expect(out.imported.text).toBe('here is the key:\n<removed: private key>\nend');

    // No customer secret key, as a member or inside recorded JSON.
    expect(text).not.toContain(SECRET);
    expect(out.sign_in.user.key).toBe('<removed: user secret key>');
    expect(out.events[0]!.response.body).toContain('"key":"<removed: user secret key>"');
    // An already masked key stays as the bank endpoints wrote it (its length, no character of it).
    expect(out.events[1]!.response.body).toContain('<masked: 24 characters>');

    // Signatures shortened everywhere: alone, in a header, in a curl command, inside a body.
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(text).not.toContain(s);
    const short = `${h}.${p}.${s.slice(0, 8)}…`;
    expect(out.tokens.bank_jwt.token).toBe(short);
    expect(out.exchanges[0]!.request.headers['CX-Authorization']).toBe(short);
    expect(out.exchanges[0]!.curl).toContain(`CX-Authorization: ${short}'`);
    expect(JSON.parse(out.exchanges[0]!.response.body)).toEqual({ session_token: short });
    // Header and payload, the evidence, are whole.
    expect(out.tokens.bank_jwt.header).toEqual({ alg: 'RS256' });

    // The input is not changed.
    expect(pack.sign_in.user.key).toBe(SECRET);
  });

  it('keeps signatures whole only when asked, and never the secrets', async () => {
    const { pack, token } = await salted();
    const text = JSON.stringify(redactPack(pack, { fullTokens: true }));
    expect(text).toContain(token);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toMatch(/"d":/);
  });

  it('shortens a signature to 8 characters and an ellipsis', () => {
    expect(shortenSignature('eyJh.eyJw.abcdefghijklmnop')).toBe('eyJh.eyJw.abcdefgh…');
    expect(shortenSignature('eyJh.eyJw.abc')).toBe('eyJh.eyJw.abc');
    expect(shortenSignature('not-a-token')).toBe('not-a-token');
  });
});
