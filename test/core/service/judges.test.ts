/**
 * The judges of a 2xx answer (judges.ts), which were reachable only through the client's
 * closure: a 2xx that is not what the spec promises is a failure with an explanation.
 */
import { describe, expect, it } from 'vitest';
import {
  judgeRegistered,
  judgeServiceJwks,
  NO_SESSION_TOKEN,
  sessionTokenOf,
} from '../../../electron/core/service/judges';
import { jwkOf, rsaKeyPair } from '../../support/rsa-pair';

/** A public RSA JWK as a service would publish it. */
function serviceJwk(kid: string) {
  const { publicKey } = rsaKeyPair({ modulusLength: 2048 });
  return { ...jwkOf(publicKey), kid, alg: 'RS256', use: 'sig' };
}

describe('sessionTokenOf (spec 2.3)', () => {
  it('takes a non-empty string session_token and nothing else', () => {
    expect(sessionTokenOf('{"session_token":"eyJ.a.b"}')).toBe('eyJ.a.b');
    for (const body of ['', '<html>', 'null', '[]', '{"session_token":""}', '{"session_token":42}', '{}']) {
      expect(sessionTokenOf(body), body).toBeNull();
    }
    expect(NO_SESSION_TOKEN).toMatchObject({ ok: false, error: 'the answer has no session_token' });
  });
});

describe('judgeRegistered (the guide POST answers {guid})', () => {
  it('keeps the guid the service chose, and any other 2xx is still a registration', () => {
    expect(judgeRegistered('{"guid":"7d1c0e6a-1111-4222-8333-944455556666"}')).toEqual({
      ok: true,
      jwkGuid: '7d1c0e6a-1111-4222-8333-944455556666',
    });
    expect(judgeRegistered('')).toEqual({ ok: true });
    expect(judgeRegistered('null')).toEqual({ ok: true });
    expect(judgeRegistered('{"guid":7}')).toEqual({ ok: true });
  });
});

describe('judgeServiceJwks (the bank endpoints rules)', () => {
  const url = 'http://127.0.0.1:9/.well-known/jwks.json';

  it('passes a clean key set', () => {
    const jwk = serviceJwk('svc-1');
    expect(judgeServiceJwks(url, JSON.stringify({ keys: [jwk] }), url)).toEqual({ ok: true });
  });

  it('refuses keys reached on another origin, as the bank client would', () => {
    const verdict = judgeServiceJwks(url, '{"keys":[]}', 'http://127.0.0.2:9/jwks.json');
    expect(verdict.ok).toBe(false);
    expect(verdict).toMatchObject({ error: expect.stringContaining(url) });
  });

  it('names duplicate kids and what is not a JWK set', () => {
    const jwk = serviceJwk('dup');
    const dup = judgeServiceJwks(url, JSON.stringify({ keys: [jwk, jwk] }), url);
    expect(dup).toMatchObject({ ok: false, error: '0 key(s) left out, 1 duplicate kid(s)' });
    expect(dup).toMatchObject({ explanation: expect.stringContaining('"dup" appears more than once') });
    const notSet = judgeServiceJwks(url, '<html>gateway</html>', url);
    expect(notSet).toMatchObject({ ok: false, explanation: expect.stringContaining('not a JWK set') });
  });
});
