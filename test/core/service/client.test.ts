/**
 * The service client against the core's own sandbox over real HTTP, and against fake services
 * that refuse the way the real one can: exchanges recorded, emitted and explained.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { Exchange } from '../../../electron/contract/schemas/service';
import { openDatabase } from '../../../electron/core/store/db';
import {
  activateReal,
  cleanup,
  closedPort,
  eventsOf,
  fakeService,
  OBJ,
  refuse,
  startCore,
  statusOf,
  SUB,
} from './helpers';
import { rsaKeyPair } from '../../support/rsa-pair';

afterEach(cleanup);

describe('authenticate', () => {
  it('composes with the active key and defaults, gets a session_token and checks it in place', async () => {
    const running = await startCore();
    const result = await running.service.authenticate({});
    const { exchange, session_token, session_report } = methods['service.authenticate'].output.parse(result);

    expect(exchange).toMatchObject({
      ok: true,
      operation: 'authenticate',
      environment_id: 'sandbox',
      error: null,
      explanation: null,
      signing_kid: running.key.kid,
      request: {
        method: 'POST',
        url: `${running.listener.url}/api/v1/counterparty/${running.guid}/jwk/authenticate`,
        body: null,
      },
      response: { status: 200 },
    });
    const cx = exchange.request.headers['CX-Authorization'] as string;
    expect(cx.split('.')).toHaveLength(3);
    expect(exchange.curl).toBe(
      `curl -sS -X POST '${exchange.request.url}' -H 'CX-Authorization: ${cx}' -H 'Accept: application/json'`,
    );
    expect(exchange.duration_ms).toBeGreaterThan(0);

    expect(session_token).toEqual(expect.any(String));
    expect(session_report?.ok).toBe(true);
    const checks = Object.fromEntries(session_report!.checks.map((c) => [c.id, c]));
    expect(checks.signature?.status).toBe('passed');
    expect(checks.obj).toMatchObject({ status: 'passed', detail: expect.stringContaining(OBJ) });
    expect(checks.sub).toMatchObject({ status: 'passed', detail: expect.stringContaining(SUB) });
    expect(session_report!.keys).toMatchObject({
      source: 'jwks-url',
      description: expect.stringContaining(`${running.listener.url}/api/v1/.well-known/jwks.json`),
    });

    // Recorded, emitted, persisted.
    expect(eventsOf(running, 'service.exchanged')).toEqual([exchange]);
    expect(await running.service.exchanges()).toEqual([exchange]);
    const db = openDatabase(running.dataDir);
    const rows = db.prepare('SELECT record FROM service_exchanges').all();
    db.close();
    expect(rows.map((r) => Exchange.parse(JSON.parse(String(r.record))).id)).toEqual([exchange.id]);
    expect((await fs.stat(path.join(running.dataDir, 'console.db'))).mode & 0o777).toBe(0o600);
  });

  it('sends a given token as it is and expects its obj/sub back; explicit obj/sub override the defaults', async () => {
    const running = await startCore();
    const signed = await running.composer.sign({
      kid: running.key.kid,
      obj: '+4915112345678',
      sub: 'clerk-7',
    });
    const r = await running.service.authenticate({ token: signed.token });
    expect(r.exchange.ok).toBe(true);
    expect(r.exchange.request.headers['CX-Authorization']).toBe(signed.token);
    expect(r.session_report?.checks.find((c) => c.id === 'obj')?.detail).toContain('+4915112345678');

    const over = await running.service.authenticate({ obj: 'NL91ABNA0417164300', sub: 'robot' });
    expect(over.session_report?.ok).toBe(true);
    expect(over.session_report?.payload).toMatchObject({ obj: 'NL91ABNA0417164300', sub: 'robot' });

    await expect(
      running.service.authenticate({ token: signed.token, kid: running.key.kid }),
    ).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/either a token/),
    });
  });

  it('says exactly what to set when configuration is missing, and sends nothing', async () => {
    const running = await startCore({ onboard: false });
    await expect(running.service.authenticate({})).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(
        /sandbox environment has no counterparty_guid: set it with env.save \{id: "sandbox"/,
      ),
      details: { field: 'counterparty_guid' },
    });
    await running.environments.save({ id: 'sandbox', counterparty_guid: crypto.randomUUID() });
    await expect(running.service.authenticate({})).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/no kid was given and the sandbox environment has no active_kid/),
    });
    await running.environments.save({ id: 'sandbox', active_kid: running.key.kid });
    await expect(running.service.authenticate({})).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/authenticate needs obj .* and sub .*default_obj/),
    });
    await expect(running.service.authenticate({ obj: OBJ })).rejects.toMatchObject({
      message: expect.stringMatching(/needs sub/),
      details: { field: 'sub' },
    });
    await expect(running.service.authenticate({ kid: 'nobody', obj: OBJ, sub: SUB })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/"nobody" is not in the key store/),
    });
    await running.environments.save({ id: 'sandbox', active_kid: 'gone' });
    await expect(running.service.listJwks()).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/"gone" is not in the key store.*active_kid: set another/),
    });
    expect(await running.service.exchanges()).toEqual([]);

    // A core whose sandbox does not listen: no base_url.
    await running.listener.close();
    running.core.setListeners({ sandbox: undefined });
    await expect(running.service.fetchJwks()).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/the sandbox is not running/),
      details: { field: 'base_url' },
    });
  });
});

describe('jwk endpoints', () => {
  it('registers (POST), replaces (PUT), lists and fetches against the sandbox', async () => {
    const running = await startCore();
    const second = await running.keys.generate({ status: 'next' });

    const posted = await running.service.registerJwk({ kid: second.kid });
    expect(posted).toMatchObject({
      ok: true,
      operation: 'register-jwk',
      jwk_kid: second.kid,
      signing_kid: running.key.kid,
    });
    expect(posted.jwk_guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(posted.request.url).toBe(`${running.listener.url}/api/v1/counterparty/${running.guid}/jwk`);
    // Exactly the spec's six fields, and the curl carries the same body.
    const body = JSON.parse(posted.request.body as string) as { data: Record<string, unknown> };
    expect(Object.keys(body.data).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(body.data).toMatchObject({ kid: second.kid, kty: 'RSA', use: 'sig', alg: 'RS256' });
    expect(posted.curl).toContain(`--data-raw '${posted.request.body}'`);
    expect(posted.curl).toContain("-H 'Content-Type: application/json'");
    expect(posted.curl).not.toMatch(/"d":|"p":|"q":/); // no private members anywhere

    // PUT under that jwk_guid (spec 4.1 #1) replaces it: 200 {}.
    const put = await running.service.updateJwk({ kid: second.kid, jwk_guid: posted.jwk_guid as string });
    expect(put).toMatchObject({ ok: true, operation: 'update-jwk', response: { status: 200, body: '{}' } });
    expect(put.request).toMatchObject({
      method: 'PUT',
      url: `${running.listener.url}/api/v1/counterparty/${running.guid}/jwk/${posted.jwk_guid}`,
    });

    const listed = await running.service.listJwks();
    expect(listed.ok).toBe(true);
    const kids = (JSON.parse(listed.response!.body) as Array<{ data: { kid: string } }>).map(
      (r) => r.data.kid,
    );
    expect(kids.sort()).toEqual([running.key.kid, second.kid].sort());

    const jwks = await running.service.fetchJwks();
    expect(jwks).toMatchObject({ ok: true, operation: 'fetch-jwks', signing_kid: null });
    expect(jwks.request.headers['CX-Authorization']).toBeUndefined();
    expect(jwks.curl).toBe(
      `curl -sS '${running.listener.url}/api/v1/.well-known/jwks.json' -H 'Accept: application/json'`,
    );

    // The new key now authenticates.
    expect((await running.service.authenticate({ kid: second.kid })).exchange.ok).toBe(true);

    const history = await running.service.exchanges();
    expect(history.map((e) => e.operation)).toEqual([
      'authenticate',
      'fetch-jwks',
      'list-jwks',
      'update-jwk',
      'register-jwk',
    ]);
    expect(await running.service.exchanges(2)).toHaveLength(2);
    expect(eventsOf(running, 'service.exchanged')).toHaveLength(5);
  });

  it('PUT with a fresh jwk_guid by default; a key the sandbox refuses is explained', async () => {
    const running = await startCore();
    const third = await running.keys.generate({ status: 'next' });
    const put = await running.service.updateJwk({ kid: third.kid });
    expect(put.ok).toBe(true);
    expect(put.jwk_guid).toMatch(/^[0-9a-f-]{36}$/);
    // The same kid under another jwk_guid: the sandbox answers 409.
    const again = await running.service.updateJwk({ kid: third.kid });
    expect(statusOf(again)).toBe(409);
    expect(again.explanation).toMatch(/A kid names one key/);
  });
});

describe('explanations', () => {
  it('401 after an unregistered kid: register its JWK first (PUT …)', async () => {
    const running = await startCore();
    const unregistered = await running.keys.generate({ status: 'next' });
    const r = await running.service.authenticate({ kid: unregistered.kid });
    expect(r.session_token).toBeNull();
    expect(r.session_report).toBeNull();
    expect(r.exchange).toMatchObject({ ok: false, response: { status: 401 } });
    expect(r.exchange.error).toContain('"error":"unauthorized"'); // raw
    expect(r.exchange.explanation).toMatch(
      new RegExp(
        `kid "${unregistered.kid}" may not be registered yet .*register its JWK first \\(PUT .*/jwk/\\{jwk_guid\\}`,
      ),
    );
    expect(r.exchange.explanation).toContain(`signed by the active key "${running.key.kid}"`);
  });

  it('401 "Access credentials are invalid" as text: the usual causes, and a clock skew when the Date header shows one', async () => {
    const running = await startCore();
    const service = await fakeService((req, res) => {
      res.setHeader('Date', new Date(Date.now() + 10 * 60_000).toUTCString());
      refuse(res);
    });
    await activateReal(running, service.url);
    const r = await running.service.authenticate({});
    expect(r.exchange).toMatchObject({
      ok: false,
      error: 'Access credentials are invalid',
      response: { status: 401, body: 'Access credentials are invalid' },
    });
    const text = r.exchange.explanation as string;
    expect(text).toMatch(/"Access credentials are invalid", the guide's wording/);
    expect(text).toMatch(
      new RegExp(`kid "${running.key.kid}" is not registered for counterparty ${running.guid}`),
    );
    expect(text).toMatch(/clock is off/);
    expect(text).toMatch(/expired/);
    expect(text).toMatch(/not the counterparty the key was registered under/);
    // The Date header has whole seconds and the answer takes a moment: 599 to 601 s.
    expect(text).toMatch(/clock \(its Date header\) is (599|60[01]) s ahead/);
    expect(service.received[0]?.headers['cx-authorization']).toBe(
      r.exchange.request.headers['CX-Authorization'],
    );
  });

  it('404 for an unknown counterparty', async () => {
    const running = await startCore();
    const unknown = crypto.randomUUID();
    await running.environments.save({ id: 'sandbox', counterparty_guid: unknown });
    const r = await running.service.authenticate({});
    expect(statusOf(r.exchange)).toBe(404);
    expect(r.exchange.explanation).toMatch(
      new RegExp(`counterparty_guid ${unknown} is unknown to the sandbox`),
    );
    expect(r.exchange.explanation).toMatch(/onboard the bank on the Sandbox page/);
  });

  it("Fetch JWKS judges the keys by the bank's own rule: a key left out and a duplicate kid are named", async () => {
    const running = await startCore();
    const { publicKey: good } = rsaKeyPair({ modulusLength: 2048 });
    const { publicKey: e3 } = rsaKeyPair({ modulusLength: 2048, publicExponent: 3 });
    const jwk = (k: typeof good, kid: string) => ({
      ...k.export({ format: 'jwk' }),
      kid,
      use: 'sig',
      alg: 'RS256',
    });
    let keys = [jwk(good, 'a'), jwk(e3, 'weak'), jwk(good, 'a')];
    const service = await fakeService((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys }));
    });
    await activateReal(running, service.url);
    const r = await running.service.fetchJwks();
    expect(r).toMatchObject({
      ok: false,
      operation: 'fetch-jwks',
      error: '1 key(s) left out, 1 duplicate kid(s)',
    });
    expect(r.explanation).toMatch(/exponent/);
    expect(r.explanation).toMatch(/kid "a" appears more than once/);
    // The same JWKS without them is fine.
    keys = [jwk(good, 'a')];
    expect((await running.service.fetchJwks()).ok).toBe(true);
  });

  it('Fetch JWKS refuses keys reached through a redirect to another origin, as the bank would', async () => {
    const running = await startCore();
    const { publicKey } = rsaKeyPair({ modulusLength: 2048 });
    const elsewhere = await fakeService((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k', use: 'sig' }] }));
    });
    const service = await fakeService((req, res) => {
      res.writeHead(302, { Location: `${elsewhere.url}/jwks.json` });
      res.end();
    });
    await activateReal(running, service.url);
    const r = await running.service.fetchJwks();
    expect(r).toMatchObject({ ok: false, operation: 'fetch-jwks' });
    expect(r.error).toMatch(
      /to another origin, http:\/\/127\.0\.0\.1:\d+ .*only trusted from its own origin/,
    );
    expect(r.explanation).toMatch(/would not take these keys/);
  });

  it('connection refused: is the service / the sandbox running?', async () => {
    const running = await startCore();
    const port = await closedPort();
    await activateReal(running, `http://127.0.0.1:${port}`);
    const real = await running.service.authenticate({});
    expect(real.exchange).toMatchObject({ ok: false, response: null });
    expect(real.exchange.error).toMatch(/ECONNREFUSED/);
    expect(real.exchange.explanation).toMatch(
      new RegExp(`Nothing accepted the connection at http://127.0.0.1:${port}: is the service running at`),
    );
    expect(real.exchange.curl).toContain(`http://127.0.0.1:${port}/api/v1/counterparty/`);

    await running.environments.activate('sandbox');
    await running.listener.close(); // the core still names its URL: nothing listens there now
    const sandbox = await running.service.fetchJwks();
    expect(sandbox.ok).toBe(false);
    expect(sandbox.explanation).toMatch(/is the sandbox running at http:\/\/127\.0\.0\.1:\d+\?/);
  });

  it('gives up after the timeout, and says so', async () => {
    const running = await startCore();
    const hanging = await fakeService(() => undefined); // never answers
    await activateReal(running, hanging.url);
    const client = running.client({ timeoutMs: 300 });
    const r = await client.fetchJwks();
    expect(r).toMatchObject({
      ok: false,
      response: null,
      error: 'no complete answer within 300 ms; gave up',
    });
    expect(r.explanation).toMatch(/did not answer in time/);
    expect(r.duration_ms).toBeGreaterThanOrEqual(290);
  });

  it('a 200 that is not what the endpoint answers is not ok', async () => {
    const running = await startCore();
    const service = await fakeService((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>Welcome</html>');
    });
    await activateReal(running, service.url);
    const auth = await running.service.authenticate({});
    expect(auth).toMatchObject({ session_token: null, session_report: null, exchange: { ok: false } });
    expect(auth.exchange.explanation).toMatch(/not \{"session_token": "…"\}/);
    const jwks = await running.service.fetchJwks();
    expect(jwks.ok).toBe(false);
    expect(jwks.error).toMatch(/not JSON/);
  });

  it('does not follow a redirect with the token in it', async () => {
    const running = await startCore();
    const service = await fakeService((_req, res) => {
      res.writeHead(301, { Location: 'https://elsewhere.example/' });
      res.end();
    });
    await activateReal(running, service.url);
    const r = await running.service.listJwks();
    expect(statusOf(r)).toBe(301);
    expect(r.explanation).toMatch(/redirect to https:\/\/elsewhere.example\//);
    expect(service.received).toHaveLength(1);
  });
});

describe('history', () => {
  it('keeps the most recent exchanges up to the cap, newest first, across clients', async () => {
    const running = await startCore();
    const client = running.client({ historyCap: 5 });
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push((await client.fetchJwks()).id);
    expect((await client.exchanges(5)).map((e) => e.id)).toEqual(ids.slice(-5).reverse());
    // Another client on the same profile reads the same history.
    expect((await running.client().exchanges(3)).map((e) => e.id)).toEqual(ids.slice(-3).reverse());
  });

  it('service.* through dispatch answers with contract-shaped values', async () => {
    const running = await startCore();
    const auth = await running.core.dispatch('service.authenticate', {});
    expect(auth.ok).toBe(true);
    const value = methods['service.authenticate'].output.parse((auth as { value: unknown }).value);
    expect(value.session_report?.ok).toBe(true);
    const exchanges = await running.core.dispatch('service.exchanges', { limit: 5 });
    expect(methods['service.exchanges'].output.parse((exchanges as { value: unknown }).value)).toEqual([
      value.exchange,
    ]);
    const jwks = await running.core.dispatch('service.fetchJwks', undefined);
    expect(methods['service.fetchJwks'].output.parse((jwks as { value: unknown }).value).ok).toBe(true);
    const bad = await running.core.dispatch('service.updateJwk', { kid: 'k', jwk_guid: 'nope' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT', message: /jwk_guid/ } });
    const rotated = await running.core.dispatch('service.rotate', {});
    expect(methods['service.rotate'].output.parse((rotated as { value: unknown }).value).state).toBe('done');
  });
});
