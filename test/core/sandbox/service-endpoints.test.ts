/** The spec's endpoints under /api/v1 (spec 4.1) and the guide's POST/GET .../jwk. */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bankClaims,
  bankJwt,
  call,
  cleanup,
  errorOf,
  makeBankKey,
  nowSeconds,
  rawJwt,
  startWithCounterparty,
} from './helpers';
import { rsaKeyPair } from '../../support/rsa-pair';

afterEach(cleanup);

const auth = (guid: string) => `/api/v1/counterparty/${guid}/jwk/authenticate`;

describe('POST /api/v1/counterparty/{guid}/jwk/authenticate', () => {
  it('answers 200 with a session_token signed by the sandbox key, carrying exactly flow, obj, sub, iat, exp', async () => {
    const sb = await startWithCounterparty();
    const token = await bankJwt(
      sb.key,
      bankClaims({ obj: 'DE89370400440532013000', sub: 'anna@bank.example' }),
    );
    const r = await call(sb.url, 'POST', auth(sb.guid), { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const { session_token } = r.json as { session_token: string };
    expect(Object.keys(r.json as object)).toEqual(['session_token']);

    const jwks = (await call(sb.url, 'GET', '/api/v1/.well-known/jwks.json')).json as {
      keys: Array<{ kid: string }>;
    };
    const header = decodeProtectedHeader(session_token);
    expect(header).toEqual({ alg: 'RS256', kid: jwks.keys[0]?.kid, typ: 'JWT' });
    const { payload } = await jwtVerify(session_token, createLocalJWKSet(jwks as never), {
      algorithms: ['RS256'],
    });
    expect(Object.keys(payload).sort()).toEqual(['exp', 'flow', 'iat', 'obj', 'sub']);
    expect(payload).toMatchObject({
      flow: 'sign-in',
      obj: 'DE89370400440532013000',
      sub: 'anna@bank.example',
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
  });

  it('uses token_ttl_seconds for the session_token lifetime', async () => {
    const sb = await startWithCounterparty();
    await sb.sandbox.updateSettings({ token_ttl_seconds: 42 });
    const r = await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(sb.key) });
    const { payload } = await jwtVerify(
      (r.json as { session_token: string }).session_token,
      createLocalJWKSet((await call(sb.url, 'GET', '/api/v1/.well-known/jwks.json')).json as never),
    );
    expect((payload.exp as number) - (payload.iat as number)).toBe(42);
  });

  it('accepts every allowed RSA alg the registered key is for (PS256 here)', async () => {
    const sb = await startWithCounterparty();
    const ps = await makeBankKey('ps-key', 'PS256');
    await sb.sandbox.status(); // noop, keeps the sandbox warm
    const put = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/${crypto.randomUUID()}`, {
      token: await bankJwt(sb.key),
      json: { data: ps.jwk },
    });
    expect(put.status).toBe(200);
    expect((await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(ps) })).status).toBe(200);
  });

  const refusals: Array<
    [string, (sb: Awaited<ReturnType<typeof startWithCounterparty>>) => Promise<string | undefined>, RegExp]
  > = [
    ['no CX-Authorization header', async () => undefined, /no CX-Authorization header/],
    ['a Bearer prefix', async (sb) => `Bearer ${await bankJwt(sb.key)}`, /without a "Bearer " prefix/],
    [
      'a malformed token',
      async () => 'not-a-jwt',
      /^structure: no dots: a compact JWS has three base64url segments/,
    ],
    [
      'a kid that is not registered',
      async (sb) => bankJwt(sb.key, bankClaims(), { kid: '54321' }),
      /^kid "54321" is not registered for this counterparty/,
    ],
    ['no kid', async (sb) => bankJwt(sb.key, bankClaims(), { kid: undefined }), /no kid/],
    [
      'the right kid but another key',
      async (sb) => bankJwt({ ...(await makeBankKey(sb.key.kid)) }),
      /^signature: does not verify with key kid=\S+: signed by another key/,
    ],
    [
      'alg none',
      async (sb) => rawJwt({ alg: 'none', kid: sb.key.kid }, bankClaims()),
      /alg "none": an unsigned token/,
    ],
    [
      'HS256 with the public key as the secret (algorithm confusion)',
      async (sb) => {
        const { SignJWT } = await import('jose');
        const secret = new TextEncoder().encode(JSON.stringify(sb.key.jwk));
        return new SignJWT(bankClaims()).setProtectedHeader({ alg: 'HS256', kid: sb.key.kid }).sign(secret);
      },
      /alg HS256 is HMAC/,
    ],
    [
      'PS256 against a key registered for RS256',
      async (sb) => bankJwt(await makeBankKey(sb.key.kid, 'PS256')),
      /^signature: key kid=\S+ is for alg RS256, but the token says PS256: the key and the token disagree/,
    ],
    [
      'an expired token',
      async (sb) => bankJwt(sb.key, bankClaims({ iat: nowSeconds() - 600, exp: nowSeconds() - 120 })),
      /^exp: expired/,
    ],
    [
      'exp within the leeway is still fine → but iat in the future is not',
      async (sb) => bankJwt(sb.key, bankClaims({ iat: nowSeconds() + 300, exp: nowSeconds() + 600 })),
      /^iat: .*in the future/,
    ],
    [
      'a lifetime above 1 h',
      async (sb) => bankJwt(sb.key, bankClaims({ iat: nowSeconds() - 10, exp: nowSeconds() + 3600 })),
      /^lifetime: exp - iat is 3610 s, more than the 3600 s/,
    ],
    [
      'a zero lifetime (iat = exp) whose exp is past the leeway: judged by exp, like any token',
      async (sb) => bankJwt(sb.key, bankClaims({ iat: nowSeconds() - 120, exp: nowSeconds() - 120 })),
      /^exp: expired .*beyond the 60 s leeway/,
    ],
    [
      'times in milliseconds',
      async (sb) => bankJwt(sb.key, bankClaims({ iat: Date.now() - 5000, exp: Date.now() + 60_000 })),
      /milliseconds/,
    ],
    [
      'flow sign-up',
      async (sb) => bankJwt(sb.key, bankClaims({ flow: 'sign-up' })),
      /^flow "sign-up" is one of the service guide's other flows/,
    ],
    ['no flow', async (sb) => bankJwt(sb.key, bankClaims({ flow: undefined })), /^flow: no flow claim/],
    ['an empty obj', async (sb) => bankJwt(sb.key, bankClaims({ obj: '' })), /^obj is empty/],
    [
      'a blank sub',
      async (sb) => bankJwt(sb.key, bankClaims({ sub: '  ' })),
      /^sub is only white space \(" {2}"\)/,
    ],
    [
      'a numeric sub',
      async (sb) => bankJwt(sb.key, bankClaims({ sub: 42 })),
      /^sub is a number, not a string/,
    ],
  ];

  for (const [name, makeToken, detail] of refusals) {
    it(`refuses ${name} with 401 unauthorized`, async () => {
      const sb = await startWithCounterparty();
      const token = await makeToken(sb);
      const r = await call(sb.url, 'POST', auth(sb.guid), token === undefined ? {} : { token });
      expect(r.status).toBe(401);
      expect(errorOf(r).error).toBe('unauthorized');
      expect(errorOf(r).detail).toMatch(detail);
    });
  }

  // DESIGN.md "Sandbox service" caps the lifetime only from above; the guide's own sample has
  // iat = exp. Issue 24: the sandbox used to refuse these as "expired the moment it is issued".
  it.each([
    ['a zero lifetime with exp ahead (iat = exp = now + 30 s)', 30, 30],
    ['a zero lifetime with exp just past, within the leeway (iat = exp = now - 30 s)', -30, -30],
    ['a negative lifetime with exp ahead (iat = now + 40 s, exp = now + 20 s)', 40, 20],
  ])('accepts %s: judged by exp with the leeway, not refused for its lifetime', async (_name, iat, exp) => {
    const sb = await startWithCounterparty();
    const claims = bankClaims({ iat: nowSeconds() + iat, exp: nowSeconds() + exp });
    const r = await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(sb.key, claims) });
    expect(r.status, r.text).toBe(200);
  });

  it('accepts exp just past, within the 60 s leeway', async () => {
    const sb = await startWithCounterparty();
    const token = await bankJwt(sb.key, bankClaims({ iat: nowSeconds() - 100, exp: nowSeconds() - 30 }));
    expect((await call(sb.url, 'POST', auth(sb.guid), { token })).status).toBe(200);
  });

  it('refuses a key registered for another counterparty (keys are per counterparty)', async () => {
    const a = await startWithCounterparty();
    const other = await makeBankKey();
    const b = await call(a.url, 'POST', '/sandbox/v1/counterparties', { json: { jwk: other.jwk } });
    expect(b.status).toBe(201);
    const r = await call(a.url, 'POST', auth(a.guid), { token: await bankJwt(other) });
    expect(r.status).toBe(401);
    expect(errorOf(r).detail).toMatch(`kid "${other.kid}" is not registered for this counterparty`);
  });

  it('answers 404 not_found for an unknown counterparty and 400 naming counterparty_guid for a bad GUID', async () => {
    const sb = await startWithCounterparty();
    const token = await bankJwt(sb.key);
    const unknown = await call(sb.url, 'POST', auth(crypto.randomUUID()), { token });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({
      error: 'not_found',
      detail: expect.stringMatching(/is not known to the sandbox/),
    });
    const bad = await call(sb.url, 'POST', auth('not-a-guid'), { token });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({
      error: 'bad_request',
      detail: expect.stringMatching(/^counterparty_guid "not-a-guid" is not a GUID/),
    });
  });

  it('finds a counterparty whatever the case of its GUID', async () => {
    const sb = await startWithCounterparty();
    const r = await call(sb.url, 'POST', auth(sb.guid.toUpperCase()), { token: await bankJwt(sb.key) });
    expect(r.status).toBe(200);
  });

  it('answers 405 with Allow for another method on the endpoint', async () => {
    const sb = await startWithCounterparty();
    const r = await call(sb.url, 'GET', auth(sb.guid));
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(errorOf(r)).toMatchObject({
      error: 'method_not_allowed',
      detail: expect.stringMatching(/GET is not allowed/),
    });
    // "authenticate" is never read as a jwk_guid.
    const put = await call(sb.url, 'PUT', auth(sb.guid), { json: { data: sb.key.jwk } });
    expect(put.status).toBe(405);
  });
});

describe('GET /api/v1/.well-known/jwks.json', () => {
  it('publishes the sandbox key with exactly the spec fields alg, e, kid, kty, n, use', async () => {
    const sb = await startWithCounterparty();
    const r = await call(sb.url, 'GET', '/api/v1/.well-known/jwks.json');
    expect(r.status).toBe(200);
    const { keys } = r.json as { keys: Array<Record<string, string>> };
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0] as object)).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(keys[0]).toMatchObject({ alg: 'RS256', kty: 'RSA', use: 'sig', e: 'AQAB' });
    expect(keys[0]?.kid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Buffer.from(keys[0]?.n as string, 'base64url').length).toBe(256); // 2048 bits
  });
});

describe('PUT /api/v1/counterparty/{guid}/jwk/{jwk_guid}', () => {
  it('registers a new key when authorized by the old one: 200 {}; the new key then authenticates', async () => {
    const sb = await startWithCounterparty();
    const next = await makeBankKey('next-key');
    const jwkGuid = crypto.randomUUID();
    const path = `/api/v1/counterparty/${sb.guid}/jwk/${jwkGuid}`;

    // Signed by the key being registered: not registered yet, so refused.
    const early = await call(sb.url, 'PUT', path, { token: await bankJwt(next), json: { data: next.jwk } });
    expect(early.status).toBe(401);
    expect(errorOf(early).detail).toMatch(/^kid "next-key" is not registered for this counterparty/);

    const r = await call(sb.url, 'PUT', path, { token: await bankJwt(sb.key), json: { data: next.jwk } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
    expect((await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(next) })).status).toBe(200);
    expect((await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(sb.key) })).status).toBe(200);

    const status = await sb.sandbox.status();
    const cp = status.counterparties.find((c) => c.counterparty_guid === sb.guid);
    expect(cp?.jwks.map((j) => [j.jwk_guid, j.via])).toEqual([
      [sb.jwkGuid, 'onboarding'],
      [jwkGuid, 'put'],
    ]);
    expect(sb.emitted.filter((e) => e.event === 'sandbox.changed').length).toBeGreaterThanOrEqual(2);
  });

  it('PUT again on the same jwk_guid replaces that key (idempotent), and the old key stops verifying', async () => {
    const sb = await startWithCounterparty();
    const jwkGuid = crypto.randomUUID();
    const path = `/api/v1/counterparty/${sb.guid}/jwk/${jwkGuid}`;
    const first = await makeBankKey('k-first');
    const second = await makeBankKey('k-second');
    expect(
      (await call(sb.url, 'PUT', path, { token: await bankJwt(sb.key), json: { data: first.jwk } })).status,
    ).toBe(200);
    expect((await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(first) })).status).toBe(200);
    expect(
      (await call(sb.url, 'PUT', path, { token: await bankJwt(sb.key), json: { data: second.jwk } })).status,
    ).toBe(200);
    const old = await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(first) });
    expect(old.status).toBe(401);
    expect((await call(sb.url, 'POST', auth(sb.guid), { token: await bankJwt(second) })).status).toBe(200);
  });

  it('refuses without CX-Authorization (401) and changes nothing', async () => {
    const sb = await startWithCounterparty();
    const next = await makeBankKey();
    const r = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/${crypto.randomUUID()}`, {
      json: { data: next.jwk },
    });
    expect(r.status).toBe(401);
    expect(errorOf(r)).toMatchObject({
      error: 'unauthorized',
      detail: expect.stringMatching(/no CX-Authorization header/),
    });
    expect((await sb.sandbox.status()).counterparties[0]?.jwks).toHaveLength(1);
  });

  it('refuses a private JWK with 400 naming the private members, and never stores them', async () => {
    const sb = await startWithCounterparty();
    const next = await makeBankKey();
    const r = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/${crypto.randomUUID()}`, {
      token: await bankJwt(sb.key),
      json: { data: next.privateJwk },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('bad_request');
    expect(errorOf(r).detail).toMatch(/private key \(it has the private members d, p, q, dp, dq, qi\)/);
    expect(r.text).not.toContain(String(next.privateJwk.d));
    expect((await sb.sandbox.status()).counterparties[0]?.jwks).toHaveLength(1);
  });

  const badBodies: Array<[string, (jwk: Record<string, unknown>) => unknown, RegExp]> = [
    ['a bare JWK without data', (jwk) => jwk, /data is missing.*bare JWK/],
    ['an array', () => [], /must be a JSON object/],
    [
      'a symmetric key',
      () => ({ data: { kty: 'oct', k: 'c2VjcmV0', kid: 'x' } }),
      /symmetric secret key \(it has the private member k\)/,
    ],
    ['an EC key', () => ({ data: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'x' } }), /kty is "EC"/],
    ['no kid', (jwk) => ({ data: { ...jwk, kid: undefined } }), /kid is missing/],
    ['use enc', (jwk) => ({ data: { ...jwk, use: 'enc' } }), /use is "enc"/],
    ['alg HS256', (jwk) => ({ data: { ...jwk, alg: 'HS256' } }), /alg: alg HS256 is HMAC/],
    ['no n', (jwk) => ({ data: { ...jwk, n: undefined } }), /n is missing/],
    ['n with padding', (jwk) => ({ data: { ...jwk, n: `${String(jwk.n)}=` } }), /n is not base64url/],
  ];
  for (const [name, body, detail] of badBodies) {
    it(`refuses ${name} with 400 bad_request`, async () => {
      const sb = await startWithCounterparty();
      const next = await makeBankKey();
      const r = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/${crypto.randomUUID()}`, {
        token: await bankJwt(sb.key),
        json: body(next.jwk as Record<string, unknown>),
      });
      expect(r.status).toBe(400);
      expect(errorOf(r).error).toBe('bad_request');
      expect(errorOf(r).detail).toMatch(detail);
    });
  }

  it('refuses a 1024-bit RSA key', async () => {
    const sb = await startWithCounterparty();
    const { publicKey } = rsaKeyPair({ modulusLength: 1024 });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'small', alg: 'RS256', use: 'sig' };
    const r = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/${crypto.randomUUID()}`, {
      token: await bankJwt(sb.key),
      json: { data: jwk },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).detail).toMatch(/1024 bits; at least 2048/);
  });

  it('answers 409 conflict for a kid already registered under another jwk_guid', async () => {
    const sb = await startWithCounterparty();
    const clash = await makeBankKey(sb.key.kid);
    const r = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/${crypto.randomUUID()}`, {
      token: await bankJwt(sb.key),
      json: { data: clash.jwk },
    });
    expect(r.status).toBe(409);
    expect(errorOf(r)).toMatchObject({
      error: 'conflict',
      detail: expect.stringMatching(
        new RegExp(
          `kid "${sb.key.kid}" is already registered for this counterparty under jwk_guid ${sb.jwkGuid}`,
        ),
      ),
    });
  });

  it('answers 400 naming jwk_guid for a malformed jwk_guid, and 404 for an unknown counterparty', async () => {
    const sb = await startWithCounterparty();
    const next = await makeBankKey();
    const bad = await call(sb.url, 'PUT', `/api/v1/counterparty/${sb.guid}/jwk/nope`, {
      token: await bankJwt(sb.key),
      json: { data: next.jwk },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).detail).toMatch(/^jwk_guid "nope" is not a GUID/);
    const unknown = await call(
      sb.url,
      'PUT',
      `/api/v1/counterparty/${crypto.randomUUID()}/jwk/${crypto.randomUUID()}`,
      {
        token: await bankJwt(sb.key),
        json: { data: next.jwk },
      },
    );
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).error).toBe('not_found');
  });
});

describe("the guide's POST and GET /api/v1/counterparty/{guid}/jwk", () => {
  it('POST registers under a fresh guid; GET lists [{guid, data}]', async () => {
    const sb = await startWithCounterparty();
    const next = await makeBankKey();
    const r = await call(sb.url, 'POST', `/api/v1/counterparty/${sb.guid}/jwk`, {
      token: await bankJwt(sb.key),
      json: { data: next.jwk },
    });
    expect(r.status).toBe(200);
    const { guid } = r.json as { guid: string };
    expect(guid).toMatch(/^[0-9a-f-]{36}$/);

    const list = await call(sb.url, 'GET', `/api/v1/counterparty/${sb.guid}/jwk`, {
      token: await bankJwt(next),
    });
    expect(list.status).toBe(200);
    expect(list.json).toEqual([
      { guid: sb.jwkGuid, data: sb.key.jwk },
      { guid, data: next.jwk },
    ]);
  });

  it('GET and POST require CX-Authorization', async () => {
    const sb = await startWithCounterparty();
    const list = await call(sb.url, 'GET', `/api/v1/counterparty/${sb.guid}/jwk`);
    expect(list.status).toBe(401);
    expect(errorOf(list).error).toBe('unauthorized');
    const post = await call(sb.url, 'POST', `/api/v1/counterparty/${sb.guid}/jwk`, {
      json: { data: (await makeBankKey()).jwk },
    });
    expect(post.status).toBe(401);
  });

  it('POST refuses a duplicate kid with 409', async () => {
    const sb = await startWithCounterparty();
    const r = await call(sb.url, 'POST', `/api/v1/counterparty/${sb.guid}/jwk`, {
      token: await bankJwt(sb.key),
      json: { data: (await makeBankKey(sb.key.kid)).jwk },
    });
    expect(r.status).toBe(409);
    expect(errorOf(r).error).toBe('conflict');
  });
});
