import { rmSync } from 'node:fs';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { SignedJwt, type Environment } from '../../../electron/contract/schemas/service';
import { EventHub } from '../../../electron/core/event-hub';
import { createComposer, shellQuote } from '../../../electron/core/service/compose';
import { createSignedPairs } from '../../../electron/core/bank/signed-pairs';
import { openDatabase } from '../../../electron/core/store/db';
import { createKeyStore, type KeyStore } from '../../../electron/core/keys';
import type { SignedPairs } from '../../../electron/core/bank/types';
import type { Composer, EnvironmentStore } from '../../../electron/core/service/types';
import { tempDir, testSealer, testVault } from '../keys/helpers';

const T0 = Date.UTC(2026, 2, 10, 9, 0);
const NOW_S = T0 / 1000;
const IBAN = 'DE89370400440532013000';
const GUID = '0d6c1f7e-58a4-4c3e-9a8e-2f4b7c1d9e01';

let dataDir: string;
let clock: number;
let keys: KeyStore;
let pairs: SignedPairs;
let environment: Partial<Environment> | Error;
let composer: Composer;

/** Only `get` of the environment store matters to the composer: the active environment. */
const environments: Pick<EnvironmentStore, 'get'> = {
  get: async () => {
    if (environment instanceof Error) throw environment;
    return {
      id: 'sandbox',
      name: 'Sandbox',
      kind: 'sandbox',
      base_url: null,
      counterparty_guid: null,
      active_kid: null,
      default_obj: null,
      default_sub: null,
      service_jwks_url: null,
      effective_jwks_url: null,
      ...environment,
    };
  },
};

beforeEach(async () => {
  dataDir = tempDir('dets-compose-');
  clock = T0;
  keys = createKeyStore({
    dataDir,
    vault: testVault(testSealer()),
    events: new EventHub(),
    now: () => clock,
  });
  pairs = createSignedPairs({ dataDir, now: () => clock });
  environment = { base_url: 'http://127.0.0.1:7302', counterparty_guid: GUID };
  composer = createComposer({ keys, pairs, environments, now: () => clock });
  await keys.generate({ kid: 'bank-key' });
});
afterEach(async () => {
  // The signed pairs hold the profile database, whose writer threads write in dataDir.
  await pairs.close?.();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

async function verify(token: string, kid = 'bank-key') {
  const jwk = JSON.parse((await keys.export({ kid, format: 'jwk' })).text) as { alg: string };
  return jwtVerify(token, await importJWK(jwk, jwk.alg), { currentDate: new Date(clock) });
}

describe('composer', () => {
  it('signs exactly the spec 2.4 claims with header alg, kid, typ; the token verifies with the exported JWK', async () => {
    const signed = await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 'ops@bank.example' });
    expect(SignedJwt.parse(signed)).toEqual(signed);
    const { payload, protectedHeader } = await verify(signed.token);
    const expected = { flow: 'sign-in', obj: IBAN, sub: 'ops@bank.example', iat: NOW_S, exp: NOW_S + 300 };
    expect(payload).toEqual(expected);
    expect(Object.keys(decodeJwt(signed.token))).toEqual(['flow', 'obj', 'sub', 'iat', 'exp']);
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: 'bank-key', typ: 'JWT' });
    expect(signed.payload).toEqual(expected);
    expect(signed.header).toEqual(decodeProtectedHeader(signed.token));
    expect(signed.warnings).toEqual([]);
    expect(signed.header_line).toBe(`CX-Authorization: ${signed.token}`);
  });

  it('takes ttl and iat', async () => {
    const signed = await composer.sign({
      kid: 'bank-key',
      obj: '+4915112345678',
      sub: 's',
      ttl: 60,
      iat: NOW_S - 10,
    });
    expect(decodeJwt(signed.token)).toMatchObject({ iat: NOW_S - 10, exp: NOW_S + 50 });
    expect(signed.warnings).toEqual([]);
  });

  it('signs with a PS256 key and says so in the header', async () => {
    await keys.generate({ kid: 'pss', alg: 'PS256' });
    const signed = await composer.sign({ kid: 'pss', obj: IBAN, sub: 's' });
    expect((await verify(signed.token, 'pss')).protectedHeader.alg).toBe('PS256');
  });

  it('warns (and still signs) about an odd obj, a lifetime over an hour, a token born expired or in the future', async () => {
    const badChecksum = await composer.sign({ kid: 'bank-key', obj: 'DE89370400440532013001', sub: 's' });
    expect(badChecksum.warnings).toEqual([expect.stringMatching(/IBAN but its checksum fails/)]);

    const neither = await composer.sign({ kid: 'bank-key', obj: 'customer-42', sub: 's', ttl: 7200 });
    expect(neither.warnings).toEqual([
      expect.stringMatching(/is neither an IBAN with a valid ISO 13616 checksum/),
      expect.stringMatching(/7200 s: the sandbox refuses tokens living over 1 hour/),
    ]);
    expect(neither.warnings[0]).toMatch(/E\.164/);
    await expect(verify(neither.token)).resolves.toBeTruthy();

    const past = await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's', iat: NOW_S - 1000, ttl: 100 });
    expect(past.warnings).toEqual([expect.stringMatching(/already expired/)]);
    const future = await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's', iat: NOW_S + 600 });
    expect(future.warnings).toEqual([expect.stringMatching(/600 s in the future/)]);
  });

  it('warns when the key is retired, and refuses an expired key', async () => {
    await keys.generate({ kid: 'newer', status: 'active', expires: '2026-03-11' });
    const retired = await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' });
    expect(retired.warnings).toEqual([expect.stringMatching(/"bank-key" is retired/)]);
    clock += 3 * 86_400_000;
    const err = await composer.sign({ kid: 'newer', obj: IBAN, sub: 's' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConsoleError);
    expect((err as ConsoleError).code).toBe('KEY_INVALID');
    expect((err as ConsoleError).message).toContain('expired on 2026-03-11');
  });

  it('gives a curl call to the active environment, and null when it has no URL or GUID or cannot be read', async () => {
    const signed = await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' });
    expect(signed.curl).toBe(
      `curl -sS -X POST 'http://127.0.0.1:7302/api/v1/counterparty/${GUID}/jwk/authenticate' -H 'CX-Authorization: ${signed.token}'`,
    );
    environment = { base_url: 'https://dets.example/', counterparty_guid: GUID };
    expect((await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' })).curl).toContain(
      `'https://dets.example/api/v1/counterparty/${GUID}/jwk/authenticate'`,
    );
    environment = { base_url: 'http://127.0.0.1:7302', counterparty_guid: null };
    expect((await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' })).curl).toBeNull();
    environment = { base_url: null, counterparty_guid: GUID };
    expect((await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' })).curl).toBeNull();
    environment = new ConsoleError('STATE_DAMAGED', 'environments file damaged');
    expect((await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' })).curl).toBeNull();
  });

  it('quotes for the shell', () => {
    expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
  });

  it('remembers each signed obj/sub pair, and warns (still signing) when it cannot', async () => {
    await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 'first@bank' });
    clock += 1000;
    await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 'second@bank' });
    expect(await createSignedPairs({ dataDir, now: () => clock }).subsFor(IBAN)).toEqual([
      'second@bank',
      'first@bank',
    ]);

    // A write that fails (here: the table is gone) is a warning; the token is still signed.
    const db = openDatabase(dataDir);
    db.exec('DROP TABLE signed_pairs');
    db.close();
    const signed = await composer.sign({ kid: 'bank-key', obj: IBAN, sub: 's' });
    expect(signed.warnings).toEqual([expect.stringMatching(/could not be remembered.*console\.db/)]);
    await expect(verify(signed.token)).resolves.toBeTruthy();
  });

  it('answers NOT_FOUND for an unknown kid', async () => {
    const err = await composer.sign({ kid: 'nope', obj: IBAN, sub: 's' }).catch((e: unknown) => e);
    expect((err as ConsoleError).code).toBe('NOT_FOUND');
  });
});
