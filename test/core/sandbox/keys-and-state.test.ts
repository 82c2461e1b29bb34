/**
 * The sandbox's signing key (rotation, grace, sealing) and its state in the profile database
 * (restart), and an old state file that is damaged (left as it was).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { createSandbox } from '../../../electron/core/sandbox';
import {
  bankJwt,
  databaseBytes,
  readStateRows,
  call,
  cleanup,
  makeBankKey,
  startSandbox,
  startWithCounterparty,
  tempDir,
  testSealer,
} from './helpers';

afterEach(cleanup);

type Jwks = { keys: Array<{ kid: string }> };
const jwksOf = async (url: string) => (await call(url, 'GET', '/api/v1/.well-known/jwks.json')).json as Jwks;
const stateFile = (dataDir: string) => path.join(dataDir, 'sandbox', 'state.json');

describe('key rotation', () => {
  it('publishes the new kid at once, keeps the old one during the grace period, then drops it', async () => {
    let now = Date.now();
    const sb = await startWithCounterparty({ now: () => now });
    const before = await jwksOf(sb.url);
    const oldKid = before.keys[0]!.kid;
    const auth = `/api/v1/counterparty/${sb.guid}/jwk/authenticate`;
    const oldToken = (
      (await call(sb.url, 'POST', auth, { token: await bankJwt(sb.key) })).json as { session_token: string }
    ).session_token;

    const rotated = await call(sb.url, 'POST', '/sandbox/v1/keys/rotate');
    expect(rotated.status).toBe(200);
    const { active_kid } = rotated.json as { active_kid: string };
    expect(active_kid).not.toBe(oldKid);

    const during = await jwksOf(sb.url);
    expect(during.keys.map((k) => k.kid)).toEqual([active_kid, oldKid]);
    const keys = (await sb.sandbox.status()).keys;
    expect(keys.map((k) => [k.kid, k.status])).toEqual([
      [active_kid, 'active'],
      [oldKid, 'grace'],
    ]);
    expect(Date.parse(keys[1]!.retires_at!) - now).toBe(600_000);

    // New tokens are signed with the new kid; both verify against the published JWKS.
    const newToken = (
      (await call(sb.url, 'POST', auth, { token: await bankJwt(sb.key) })).json as { session_token: string }
    ).session_token;
    expect(decodeProtectedHeader(newToken).kid).toBe(active_kid);
    const set = createLocalJWKSet(during as never);
    await expect(jwtVerify(newToken, set)).resolves.toBeTruthy();
    await expect(jwtVerify(oldToken, set)).resolves.toBeTruthy();

    now += 600_001;
    const after = await jwksOf(sb.url);
    expect(after.keys.map((k) => k.kid)).toEqual([active_kid]);
    expect(sb.emitted.some((e) => e.event === 'sandbox.changed')).toBe(true);
  });

  it('Sandbox.rotateKey does the same, and signServiceToken signs with the active key', async () => {
    const sb = await startSandbox();
    await sb.sandbox.rotateKey();
    const jwks = await jwksOf(sb.url);
    expect(jwks.keys).toHaveLength(2);
    const token = await sb.sandbox.signServiceToken({ obj: 'o', sub: 's' });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: jwks.keys[0]!.kid, typ: 'JWT' });
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as never));
    expect(payload).toMatchObject({ flow: 'sign-in', obj: 'o', sub: 's' });
  });
});

describe('state across restarts', () => {
  it('keeps counterparties, registered keys, settings and traces; without a vault a new key signs and the old one is in grace', async () => {
    const first = await startWithCounterparty();
    const next = await makeBankKey('second');
    await call(first.url, 'PUT', `/api/v1/counterparty/${first.guid}/jwk/${crypto.randomUUID()}`, {
      token: await bankJwt(first.key),
      json: { data: next.jwk },
    });
    await first.sandbox.updateSettings({ token_ttl_seconds: 120 });
    await first.sandbox.signIn({ counterparty_guid: first.guid, token: await bankJwt(first.key) });
    const oldKid = (await jwksOf(first.url)).keys[0]!.kid;
    const before = await first.sandbox.status();
    expect(before.key_persistence).toBe('memory');
    expect(first.emitted.find((e) => e.event === 'app.noticed')?.payload).toMatchObject({
      level: 'warning',
      message: expect.stringMatching(/memory only.*a restart\s+publishes a new key/s),
    });
    await first.close();

    const stat = await fs.stat(path.join(first.dataDir, 'console.db'));
    expect(stat.mode & 0o777).toBe(0o600);
    const text = await databaseBytes(first.dataDir);
    expect(text).not.toMatch(/"d"\s*:/);
    expect(text).not.toContain('PRIVATE KEY');

    const second = await startSandbox({ dataDir: first.dataDir });
    const after = await second.sandbox.status();
    expect(after.counterparties).toEqual(before.counterparties);
    expect(after.settings.token_ttl_seconds).toBe(120);
    expect(await second.sandbox.traces()).toHaveLength(1);
    const kids = (await jwksOf(second.url)).keys.map((k) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(oldKid);
    expect(after.keys.map((k) => k.status)).toEqual(['active', 'grace']);
    expect(
      second.emitted.find(
        (e) => e.event === 'app.noticed' && /kept in memory only/.test(JSON.stringify(e.payload)),
      ),
    ).toBeTruthy();
    // Both registered bank keys still authenticate.
    const auth = `/api/v1/counterparty/${first.guid}/jwk/authenticate`;
    expect((await call(second.url, 'POST', auth, { token: await bankJwt(first.key) })).status).toBe(200);
    expect((await call(second.url, 'POST', auth, { token: await bankJwt(next) })).status).toBe(200);
  });

  it('with a sealer, the sandbox key survives a restart and the database holds it only sealed', async () => {
    const sealer = testSealer();
    const first = await startWithCounterparty({ sealer });
    expect((await first.sandbox.status()).key_persistence).toBe('vault');
    expect(first.emitted.some((e) => e.event === 'app.noticed')).toBe(false);
    const kid = (await jwksOf(first.url)).keys[0]!.kid;
    await first.close();

    const text = await databaseBytes(first.dataDir);
    expect(text).not.toMatch(/"d"\s*:/);
    expect(text).not.toContain('PRIVATE KEY');
    const stored = readStateRows(first.dataDir);
    expect(stored.keys).toEqual([expect.objectContaining({ kid, sealed_private_key: expect.any(String) })]);
    // The key in clear (what the sealer opens) appears nowhere in the database, in any encoding:
    // the private exponent and primes sit in the second half of the DER / in d, p, q.
    const clear = Buffer.from(await sealer.open(stored.keys[0]!.sealed_private_key!, `sandbox-key:${kid}`));
    const privatePart = clear.subarray(Math.floor(clear.length / 2));
    for (const encoding of ['base64', 'base64url', 'hex'] as const) {
      expect(text).not.toContain(privatePart.subarray(0, 48).toString(encoding));
    }
    expect(text).not.toContain(clear.toString('utf8').slice(-64));

    const second = await startSandbox({ dataDir: first.dataDir, sealer });
    expect((await jwksOf(second.url)).keys.map((k) => k.kid)).toEqual([kid]);
    const token = (
      (
        await call(second.url, 'POST', `/api/v1/counterparty/${first.guid}/jwk/authenticate`, {
          token: await bankJwt(first.key),
        })
      ).json as { session_token: string }
    ).session_token;
    expect(decodeProtectedHeader(token).kid).toBe(kid);
    expect(second.emitted.some((e) => e.event === 'app.noticed')).toBe(false);
  });

  it('a sealed key that another vault cannot open is retired, not fatal', async () => {
    const first = await startSandbox({ sealer: testSealer() });
    const kid = (await jwksOf(first.url)).keys[0]!.kid;
    await first.close();
    const second = await startSandbox({ dataDir: first.dataDir, sealer: testSealer() });
    const keys = (await second.sandbox.status()).keys;
    expect(keys.map((k) => [k.kid === kid, k.status])).toEqual([
      [false, 'active'],
      [true, 'grace'],
    ]);
    expect(second.emitted.find((e) => e.event === 'app.noticed')?.payload).toMatchObject({
      message: expect.stringMatching(/could not be unsealed/),
    });
  });

  it('writes per change in the database: no temp files are left behind', async () => {
    const sb = await startWithCounterparty();
    await Promise.all([
      sb.sandbox.rotateKey(),
      sb.sandbox.updateSettings({ token_ttl_seconds: 60 }),
      sb.sandbox.rotateKey(),
    ]);
    await sb.close();
    const entries = await fs.readdir(sb.dataDir, { recursive: true });
    expect(entries.filter((e) => e.endsWith('.tmp'))).toEqual([]);
    const state = readStateRows(sb.dataDir);
    expect(state.keys).toHaveLength(3);
    expect(state.settings?.token_ttl_seconds).toBe(60);
  });
});

describe('a damaged state file', () => {
  const damaged: Array<[string, string | Buffer, RegExp]> = [
    ['not JSON', '{"format": "dets-console.sandbox", "vers', /is not valid JSON/],
    ['binary junk', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]), /is not valid JSON/],
    [
      'JSON of the wrong shape',
      '{"format":"dets-console.sandbox","version":1,"settings":{}}',
      /does not have the expected shape \(settings\./,
    ],
    ['an array', '[]', /does not have the expected shape/],
    [
      'a stored JWK with private members',
      JSON.stringify({
        format: 'dets-console.sandbox',
        version: 1,
        settings: {
          max_lifetime_seconds: 3600,
          key_grace_seconds: 600,
          token_ttl_seconds: 300,
          notify_path_prefix: '/api/svc/notify',
        },
        keys: [],
        counterparties: [
          {
            counterparty_guid: '3f2b8c1e-9a4d-4e7b-8c2f-1d5e6a7b8c9d',
            created_at: '2026-01-01T00:00:00.000Z',
            bank_auth_url: null,
            bank_sender_url: null,
            bank_receiver_url: null,
            jwks: [{ jwk_guid: 'x', jwk: { kty: 'RSA', d: 'secret' }, registered_at: 'x', via: 'put' }],
          },
        ],
        traces: [],
      }),
      /private members/,
    ],
  ];
  for (const [name, content, problem] of damaged) {
    it(`${name}: createSandbox rejects with STATE_DAMAGED and leaves the file byte for byte`, async () => {
      const dataDir = await tempDir();
      const file = stateFile(dataDir);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
      const bytes = await fs.readFile(file);
      const mtime = (await fs.stat(file)).mtimeMs;

      const error = await createSandbox({ dataDir, events: new EventHub() }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toMatchObject({ code: 'STATE_DAMAGED' });
      const message = (error as Error).message;
      expect(message).toContain(file);
      expect(message).toMatch(problem);
      expect(message).toMatch(/left untouched/);

      expect(Buffer.compare(await fs.readFile(file), bytes)).toBe(0);
      expect((await fs.stat(file)).mtimeMs).toBe(mtime);
      expect(await fs.readdir(path.dirname(file))).toEqual(['state.json']);
    });
  }
});
