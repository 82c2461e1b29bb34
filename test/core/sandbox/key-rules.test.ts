/**
 * The RSA key rules (DESIGN.md "Bank endpoints" and "Sandbox service") where a bank's public JWK
 * enters the sandbox over real HTTP: onboarding, PUT …/jwk/{jwk_guid} and POST …/jwk. A key with
 * e = 3 or a 1024-bit modulus is refused with 400 naming the rule, and nothing registered
 * changes; a 2048-bit key with e = 65537 is still taken.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bankJwt, call, cleanup, errorOf, makeBankKey, startSandbox, startWithCounterparty } from './helpers';
import { rsaKeyPair } from '../../support/rsa-pair';

afterEach(cleanup);

/** A public JWK as a bank would send it, from a node:crypto key pair (not through jose). */
function publicJwk(kid: string, options: { modulusLength: number; publicExponent?: number }) {
  const { publicKey } = rsaKeyPair(options);
  const { n, e } = publicKey.export({ format: 'jwk' });
  return { alg: 'RS256', e: String(e), kid, kty: 'RSA', n: String(n), use: 'sig' };
}

const EXPONENT_3 =
  /the key breaks the RSA key rules: the RSA public exponent is 3; it must be odd and between 2\^16 and 2\^256 \(FIPS 186-5\)$/;
const BITS_1024 =
  /the key breaks the RSA key rules: the RSA modulus has 1024 bits; at least 2048 are required$/;

const refused: Array<[string, ReturnType<typeof publicJwk>, RegExp]> = [
  ['e = 3', publicJwk('exponent-3', { modulusLength: 2048, publicExponent: 3 }), EXPONENT_3],
  ['a 1024-bit modulus', publicJwk('short-1024', { modulusLength: 1024 }), BITS_1024],
];

describe('onboarding (POST /sandbox/v1/counterparties)', () => {
  it.each(refused)(
    'refuses a key with %s: 400 naming the rule, nothing onboarded',
    async (_name, jwk, rule) => {
      const sb = await startSandbox();
      const r = await call(sb.url, 'POST', '/sandbox/v1/counterparties', { json: { jwk } });
      expect(r.status).toBe(400);
      expect(errorOf(r).detail).toMatch(/^jwk: /);
      expect(errorOf(r).detail).toMatch(rule);
      const list = await call(sb.url, 'GET', '/sandbox/v1/counterparties');
      expect(list.json).toEqual([]);
    },
  );

  it('takes a 2048-bit key with e = 65537', async () => {
    const sb = await startSandbox();
    const jwk = publicJwk('good-2048', { modulusLength: 2048 });
    const r = await call(sb.url, 'POST', '/sandbox/v1/counterparties', { json: { jwk } });
    expect(r.status).toBe(201);
  });
});

describe('PUT and POST /api/v1/counterparty/{guid}/jwk', () => {
  const registered = async (sb: Awaited<ReturnType<typeof startWithCounterparty>>) =>
    (
      (await call(sb.url, 'GET', `/api/v1/counterparty/${sb.guid}/jwk`, { token: await bankJwt(sb.key) }))
        .json as Array<{ data: { kid: string } }>
    ).map((r) => r.data.kid);

  for (const via of ['PUT', 'POST'] as const) {
    const path = (guid: string) =>
      via === 'PUT'
        ? `/api/v1/counterparty/${guid}/jwk/${crypto.randomUUID()}`
        : `/api/v1/counterparty/${guid}/jwk`;

    it.each(refused)(
      `${via} refuses a key with %s: 400 naming the rule, the registered keys unchanged`,
      async (_name, jwk, rule) => {
        const sb = await startWithCounterparty();
        const r = await call(sb.url, via, path(sb.guid), {
          token: await bankJwt(sb.key),
          json: { data: jwk },
        });
        expect(r.status).toBe(400);
        expect(errorOf(r).detail).toMatch(/^data: /);
        expect(errorOf(r).detail).toMatch(rule);
        expect(await registered(sb)).toEqual([sb.key.kid]);
      },
    );

    it(`${via} takes a 2048-bit key with e = 65537, which then authenticates`, async () => {
      const sb = await startWithCounterparty();
      const next = await makeBankKey(`next-${via}`);
      const r = await call(sb.url, via, path(sb.guid), {
        token: await bankJwt(sb.key),
        json: { data: next.jwk },
      });
      expect(r.status).toBe(200);
      expect(await registered(sb)).toEqual([sb.key.kid, next.kid]);
      const auth = await call(sb.url, 'POST', `/api/v1/counterparty/${sb.guid}/jwk/authenticate`, {
        token: await bankJwt(next),
      });
      expect(auth.status).toBe(200);
    });
  }
});
