/** The /sandbox/v1 controls, the Sandbox methods behind them, and the HTTP robustness rules. */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Counterparty, SandboxChange, SandboxStatus } from '../../../electron/contract/schemas/sandbox';
import { ConsoleError } from '../../../electron/contract/errors';
import { bankJwt, call, cleanup, errorOf, makeBankKey, startSandbox, startWithCounterparty } from './helpers';

afterEach(cleanup);

describe('POST /sandbox/v1/counterparties (onboarding)', () => {
  it('answers 201 with fresh GUIDs, or the ones given; GET returns the counterparty with its JWKs and URLs', async () => {
    const sb = await startSandbox();
    const key = await makeBankKey();
    const r = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      json: {
        jwk: key.jwk,
        bank_auth_url: 'http://127.0.0.1:7301',
        bank_sender_url: 'https://bank.example/s',
      },
    });
    expect(r.status).toBe(201);
    const { counterparty_guid, jwk_guid } = r.json as { counterparty_guid: string; jwk_guid: string };
    expect(Object.keys(r.json as object).sort()).toEqual(['counterparty_guid', 'jwk_guid']);
    expect(counterparty_guid).toMatch(/^[0-9a-f-]{36}$/);

    const got = await call(sb.url, 'GET', `/sandbox/v1/counterparties/${counterparty_guid}`);
    expect(got.status).toBe(200);
    const cp = Counterparty.parse(got.json);
    expect(cp).toMatchObject({
      counterparty_guid,
      bank_auth_url: 'http://127.0.0.1:7301',
      bank_sender_url: 'https://bank.example/s',
      bank_receiver_url: null,
    });
    expect(cp.jwks).toEqual([
      { jwk_guid, jwk: key.jwk, registered_at: expect.any(String), via: 'onboarding' },
    ]);

    const given = { counterparty_guid: crypto.randomUUID(), jwk_guid: crypto.randomUUID() };
    const second = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      json: { ...given, jwk: (await makeBankKey()).jwk },
    });
    expect(second.status).toBe(201);
    expect(second.json).toEqual(given);

    const list = await call(sb.url, 'GET', '/sandbox/v1/counterparties');
    expect((list.json as Counterparty[]).map((c) => c.counterparty_guid).sort()).toEqual(
      [counterparty_guid, given.counterparty_guid].sort(),
    );

    // Each change is announced with what changed and the sizes, never the lists.
    const changed = sb.emitted.filter((e) => e.event === 'sandbox.changed');
    expect(changed).toHaveLength(2);
    for (const e of changed) expect(SandboxChange.parse(e.payload).changed).toBe('counterparties');
    expect(changed.map((e) => (e.payload as SandboxChange).counterparty_count)).toEqual([1, 2]);
    expect((changed[1]?.payload as SandboxChange).url).toBe(sb.url);
    expect(Object.keys(changed[1]?.payload as object).sort()).toEqual([
      'changed',
      'counterparty_count',
      'key_count',
      'url',
    ]);
  });

  it('answers 409 for a counterparty_guid already onboarded, and keeps the first', async () => {
    const sb = await startWithCounterparty();
    const r = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      json: { counterparty_guid: sb.guid, jwk: (await makeBankKey()).jwk },
    });
    expect(r.status).toBe(409);
    expect(errorOf(r)).toMatchObject({
      error: 'conflict',
      detail: `counterparty_guid ${sb.guid} is already onboarded`,
    });
    expect((await sb.sandbox.status()).counterparties[0]?.jwks[0]?.jwk).toEqual(sb.key.jwk);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const sb = await startSandbox();
    const key = await makeBankKey();
    const cases: Array<[unknown, RegExp]> = [
      [{ jwk: key.jwk, counterparty_guid: 'abc' }, /counterparty_guid: must be a GUID/],
      [{ jwk: key.jwk, jwk_guid: 'abc' }, /jwk_guid: must be a GUID/],
      [{ jwk: key.jwk, bank_auth_url: 'ftp://bank.example' }, /bank_auth_url: must be an http\(s\) URL/],
      [{ jwk: key.jwk, bank_receiver_url: 'not a url' }, /bank_receiver_url/],
      [{}, /jwk/],
      [{ jwk: key.privateJwk }, /^jwk: the JWK is a private key/],
      [{ jwk: { ...key.jwk, kid: undefined } }, /^jwk: kid is missing/],
    ];
    for (const [body, detail] of cases) {
      const r = await call(sb.url, 'POST', '/sandbox/v1/counterparties', { json: body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(r).error).toBe('bad_request');
      expect(errorOf(r).detail).toMatch(detail);
    }
    expect((await sb.sandbox.status()).counterparties).toHaveLength(0);
  });

  it('Sandbox.onboard throws ConsoleErrors with codes (CONFLICT, BAD_ARGUMENT)', async () => {
    const sb = await startWithCounterparty();
    await expect(
      sb.sandbox.onboard({ counterparty_guid: sb.guid, jwk: (await makeBankKey()).jwk }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(sb.sandbox.onboard({ jwk: { kty: 'RSA' } })).rejects.toBeInstanceOf(ConsoleError);
  });
});

describe('other controls', () => {
  it('PATCH /sandbox/v1/counterparties/{guid} sets and clears URLs', async () => {
    const sb = await startWithCounterparty({ urls: { bank_auth_url: 'http://127.0.0.1:1' } });
    const r = await call(sb.url, 'PATCH', `/sandbox/v1/counterparties/${sb.guid}`, {
      json: { bank_auth_url: null, bank_sender_url: 'http://127.0.0.1:2' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      bank_auth_url: null,
      bank_sender_url: 'http://127.0.0.1:2',
      bank_receiver_url: null,
    });
    const bad = await call(sb.url, 'PATCH', `/sandbox/v1/counterparties/${sb.guid}`, {
      json: { bank_sender_url: 'javascript:alert(1)' },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).detail).toMatch(/bank_sender_url/);
    const unknown = await call(sb.url, 'PATCH', `/sandbox/v1/counterparties/${crypto.randomUUID()}`, {
      json: {},
    });
    expect(unknown.status).toBe(404);
  });

  it('GET /sandbox/v1/counterparties/{guid}: 404 unknown, 400 bad GUID', async () => {
    const sb = await startSandbox();
    const unknown = await call(sb.url, 'GET', `/sandbox/v1/counterparties/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).error).toBe('not_found');
    const bad = await call(sb.url, 'GET', '/sandbox/v1/counterparties/1234');
    expect(bad.status).toBe(400);
    expect(errorOf(bad).detail).toMatch(/^counterparty_guid "1234" is not a GUID/);
  });

  it('settings: GET and PATCH, refusing unknown or out-of-range values', async () => {
    const sb = await startSandbox();
    const got = await call(sb.url, 'GET', '/sandbox/v1/settings');
    expect(got.json).toEqual({
      max_lifetime_seconds: 3600,
      key_grace_seconds: 600,
      token_ttl_seconds: 300,
      notify_path_prefix: '/api/svc/notify',
      // Issue 27: the service's public guide's retry ladder.
      delivery_waits_seconds: [1, 2, 4, 8, 16, 32, 60, 60, 60],
      delivery_max_attempts: 10,
      delivery_timeout_ms: 5000,
    });
    const typo = await call(sb.url, 'PATCH', '/sandbox/v1/settings', { json: { token_ttl: 10 } });
    expect(typo.status).toBe(400);
    expect(errorOf(typo).detail).toMatch(/unknown setting "token_ttl"/);
    const range = await call(sb.url, 'PATCH', '/sandbox/v1/settings', { json: { max_lifetime_seconds: 0 } });
    expect(range.status).toBe(400);
    expect(errorOf(range).detail).toMatch(/max_lifetime_seconds/);
    const ok = await call(sb.url, 'PATCH', '/sandbox/v1/settings', { json: { max_lifetime_seconds: 7200 } });
    expect(ok.json).toMatchObject({ max_lifetime_seconds: 7200 });
    await expect(sb.sandbox.updateSettings({ notify_path_prefix: 'no-slash' })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
    });
  });

  it('a longer max_lifetime_seconds setting lets a 2 h bank JWT through', async () => {
    const sb = await startWithCounterparty();
    const now = Math.floor(Date.now() / 1000);
    const token = await bankJwt(sb.key, { flow: 'sign-in', obj: 'o', sub: 's', iat: now, exp: now + 7200 });
    const path = `/api/v1/counterparty/${sb.guid}/jwk/authenticate`;
    expect((await call(sb.url, 'POST', path, { token })).status).toBe(401);
    await sb.sandbox.updateSettings({ max_lifetime_seconds: 7200 });
    expect((await call(sb.url, 'POST', path, { token })).status).toBe(200);
  });

  it('GET /sandbox/v1/status and /sandbox/v1/keys', async () => {
    const sb = await startWithCounterparty();
    const status = SandboxStatus.parse((await call(sb.url, 'GET', '/sandbox/v1/status')).json);
    expect(status).toMatchObject({ url: sb.url, key_persistence: 'memory' });
    expect(status.counterparties).toHaveLength(1);
    const keys = (await call(sb.url, 'GET', '/sandbox/v1/keys')).json as Array<{ status: string }>;
    expect(keys.map((k) => k.status)).toEqual(['active']);
  });
});

describe('robustness: each bad request gets a clear error and the sandbox keeps serving', () => {
  it('415 for a body without application/json, 400 for malformed JSON, 400 for an empty body', async () => {
    const sb = await startSandbox();
    const noType = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      body: '{}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(noType.status).toBe(415);
    expect(errorOf(noType)).toMatchObject({
      error: 'unsupported_media_type',
      detail: expect.stringMatching(/"text\/plain"/),
    });
    const malformed = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      body: '{"jwk": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(errorOf(malformed)).toMatchObject({
      error: 'bad_request',
      detail: expect.stringMatching(/^the body is not valid JSON/),
    });
    const empty = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      body: '',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expect(errorOf(empty).detail).toMatch(/empty/);
    const sb2 = await startWithCounterparty();
    const put = await call(sb2.url, 'PUT', `/api/v1/counterparty/${sb2.guid}/jwk/${crypto.randomUUID()}`, {
      body: JSON.stringify({ data: sb2.key.jwk }),
      token: await bankJwt(sb2.key),
    });
    expect(put.status).toBe(415);
  });

  it('413 for a body over 1 MiB, declared or chunked', async () => {
    const sb = await startSandbox();
    const big = JSON.stringify({ jwk: { kty: 'RSA', pad: 'x'.repeat(1024 * 1024) } });
    const declared = await call(sb.url, 'POST', '/sandbox/v1/counterparties', {
      body: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(declared.status).toBe(413);
    expect(errorOf(declared)).toMatchObject({
      error: 'payload_too_large',
      detail: expect.stringMatching(/larger than 1048576 bytes/),
    });

    // Chunked, no Content-Length: the cap counts the bytes as they arrive.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = new URL(sb.url);
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/sandbox/v1/counterparties',
          headers: { 'Content-Type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      const piece = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 20) {
          sent++;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: 'payload_too_large' });
    expect((await call(sb.url, 'GET', '/api/v1/.well-known/jwks.json')).status).toBe(200);
  });

  it('404 not_found for an unknown route, 405 for a known one with another method', async () => {
    const sb = await startSandbox();
    const unknown = await call(sb.url, 'GET', '/api/v2/whatever');
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({
      error: 'not_found',
      detail: expect.stringMatching(/^no such endpoint: GET \/api\/v2\/whatever/),
    });
    const jwks = await call(sb.url, 'DELETE', '/api/v1/.well-known/jwks.json');
    expect(jwks.status).toBe(405);
    expect(jwks.headers.get('allow')).toBe('GET');
    const list = await call(sb.url, 'DELETE', '/sandbox/v1/counterparties');
    expect(list.headers.get('allow')).toBe('POST, GET');
  });

  it('answers malformed HTTP with a JSON 400, and survives abandoned connections', async () => {
    const sb = await startSandbox();
    const { port } = new URL(sb.url);
    const raw = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('THIS IS NOT HTTP\r\n\r\n'));
      let text = '';
      socket.on('data', (c) => (text += c.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw).toContain('"error":"bad_request"');

    // A client that sends half a request and goes away, another that sends half a body.
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /sandbox/v1/counterparties HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jwk":',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write('GET /api/v1/.well-known/jw');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    expect((await call(sb.url, 'GET', '/api/v1/.well-known/jwks.json')).status).toBe(200);
  });

  it('close() finishes an in-flight request before resolving', async () => {
    const { fakeBank, json } = await import('./helpers');
    const bank = await fakeBank(async (_r, res) => {
      await new Promise((r) => setTimeout(r, 300));
      json(res, 200, { external_id: 'e', key: 'k', phone: 'p' });
    });
    const sb = await startWithCounterparty({ urls: { bank_auth_url: bank.url } });
    const token = await bankJwt(sb.key);
    const pending = call(sb.url, 'POST', `/sandbox/v1/counterparties/${sb.guid}/sign-in`, { token });
    await new Promise((r) => setTimeout(r, 100));
    await sb.close();
    const r = await pending;
    expect(r.status).toBe(200);
    await expect(call(sb.url, 'GET', '/api/v1/.well-known/jwks.json')).rejects.toThrow();
  });
});
