/**
 * The sandbox's lifetime rule as DESIGN.md "Sandbox service" states it (issue 24 item 11): exp -
 * iat of at most the `max_lifetime_seconds` setting (1 h by default, one constant); a lifetime
 * of zero (iat = exp, the service guide's own sample) or less is judged by exp with the 60 s
 * leeway, like any token, and advised on: the verifier's verdict carries the advice for a
 * trace's detail, the inspector's lifetime advice says the same words.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { checkLifetime, checkSandboxLifetime, shortLifetimeNote } from '../../../electron/core/jwt/checks';
import { MAX_BANK_JWT_LIFETIME_SECONDS } from '../../../electron/core/jwt/policy';
import { BankJwtVerifier } from '../../../electron/core/sandbox/bank-jwt';
import { DEFAULT_SETTINGS } from '../../../electron/core/sandbox/settings';
import { bankClaims, bankJwt, cleanup, makeBankKey, nowSeconds } from './helpers';

afterEach(cleanup);

describe('checkSandboxLifetime', () => {
  it.each([
    ['zero', { iat: 100, exp: 100 }, 'passed', /^iat equals exp: zero lifetime .*judged by exp alone/],
    [
      'negative',
      { iat: 100, exp: 40 },
      'passed',
      /^exp is 1 min before iat: negative lifetime; the token is judged by exp alone/,
    ],
    ['one hour', { iat: 100, exp: 3700 }, 'passed', /^1 h from iat to exp, within 1 h$/],
    [
      'one hour and a second',
      { iat: 100, exp: 3701 },
      'failed',
      /^exp - iat is 3601 s, more than the 3600 s/,
    ],
  ] as const)('%s: %s', (_name, times, status, detail) => {
    const check = checkSandboxLifetime(times, 3600);
    expect(check).toMatchObject({ id: 'lifetime', status, detail: expect.stringMatching(detail) });
  });

  it('the sandbox, the composer and the inspector take the cap from one constant', () => {
    expect(MAX_BANK_JWT_LIFETIME_SECONDS).toBe(3600);
    expect(DEFAULT_SETTINGS.max_lifetime_seconds).toBe(MAX_BANK_JWT_LIFETIME_SECONDS);
    expect(checkLifetime({ iat: 0, exp: MAX_BANK_JWT_LIFETIME_SECONDS + 1 }).detail).toMatch(
      /longer than the 1 h the console's sandbox accepts/,
    );
    expect(checkLifetime({ iat: 0, exp: MAX_BANK_JWT_LIFETIME_SECONDS }).detail).not.toMatch(/longer/);
  });

  it("the inspector's advice and the sandbox's detail are the same words", () => {
    expect(checkLifetime({ iat: 5, exp: 5 })).toMatchObject({
      status: 'failed',
      detail: shortLifetimeNote(0),
    });
    expect(checkSandboxLifetime({ iat: 5, exp: 5 }, 3600).detail).toBe(shortLifetimeNote(0));
  });
});

describe('the verifier every sandbox endpoint and the sign-in use', () => {
  async function verdictFor(times: { iat: number; exp: number }) {
    const key = await makeBankKey();
    const cp: Counterparty = {
      counterparty_guid: '00000000-0000-4000-8000-000000000001',
      created_at: new Date().toISOString(),
      bank_auth_url: null,
      bank_sender_url: null,
      bank_receiver_url: null,
      jwks: [{ jwk_guid: 'g', jwk: key.jwk, registered_at: new Date().toISOString(), via: 'onboarding' }],
    };
    const token = await bankJwt(key, bankClaims(times));
    return new BankJwtVerifier().verify(cp, token, Date.now(), DEFAULT_SETTINGS.max_lifetime_seconds);
  }

  it('passes iat = exp with exp ahead, with the advice for the trace', async () => {
    const t = nowSeconds() + 30;
    const v = await verdictFor({ iat: t, exp: t });
    expect(v).toMatchObject({ ok: true, advice: shortLifetimeNote(0) });
  });

  it('passes a negative lifetime whose exp is within the leeway, with the advice', async () => {
    const v = await verdictFor({ iat: nowSeconds() + 10, exp: nowSeconds() - 30 });
    expect(v).toMatchObject({ ok: true, advice: expect.stringMatching(/negative lifetime/) });
  });

  it('fails iat = exp past the leeway at exp, never at lifetime', async () => {
    const t = nowSeconds() - 120;
    const v = await verdictFor({ iat: t, exp: t });
    expect(v).toMatchObject({
      ok: false,
      rule: 'exp',
      detail: expect.stringMatching(/beyond the 60 s leeway/),
    });
  });

  it('a normal lifetime carries no advice; over the setting fails lifetime', async () => {
    expect(await verdictFor({ iat: nowSeconds() - 5, exp: nowSeconds() + 240 })).toMatchObject({
      ok: true,
      advice: null,
    });
    expect(await verdictFor({ iat: nowSeconds() - 5, exp: nowSeconds() + 3600 })).toMatchObject({
      ok: false,
      rule: 'lifetime',
    });
  });
});
