import { describe, expect, it } from 'vitest';
import { ALLOWED_ALGS, judgeAlg, LEEWAY_SECONDS } from '../../../electron/core/jwt/policy';

describe('the alg policy', () => {
  it('allows exactly the RSA algorithms, with a 60 s leeway', () => {
    expect([...ALLOWED_ALGS]).toEqual(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']);
    expect(LEEWAY_SECONDS).toBe(60);
    for (const alg of ALLOWED_ALGS) expect(judgeAlg(alg)).toMatchObject({ ok: true, alg });
  });

  it('refuses none, HMAC and the rest, each for its own reason', () => {
    expect(judgeAlg('none')).toMatchObject({ ok: false, reason: 'none' });
    expect(judgeAlg('NONE')).toMatchObject({ ok: false, reason: 'none' });
    for (const alg of ['HS256', 'HS384', 'HS512'])
      expect(judgeAlg(alg)).toMatchObject({ ok: false, reason: 'hmac' });
    for (const alg of ['ES256', 'EdDSA', 'RSA-OAEP', 'rs256'])
      expect(judgeAlg(alg)).toMatchObject({ ok: false, reason: 'not-allowed' });
    expect(judgeAlg(undefined)).toMatchObject({
      ok: false,
      reason: 'missing',
      message: 'the header has no alg',
    });
    expect(judgeAlg(256)).toMatchObject({
      ok: false,
      reason: 'missing',
      message: 'alg is a number, not a string',
    });
  });
});
