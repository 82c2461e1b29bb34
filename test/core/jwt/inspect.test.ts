import { CompactSign } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../../electron/contract/schemas/inspector';
import {
  adviceOf,
  checkOf,
  claims,
  forge,
  inspect,
  jwksText,
  makeKey,
  NOW,
  sign,
  type TestKey,
} from './fixtures';

let key: TestKey;
let other: TestKey;

beforeAll(async () => {
  key = await makeKey('bank-2026-01');
  other = await makeKey('other-key');
});

const withKey = (token: string, text = jwksText(key)) =>
  inspect({ token, keySource: { type: 'text', text } });

describe('a good token', () => {
  it('passes every check, in the report order, with decoded parts, times and keys', async () => {
    const token = await sign(key);
    const r = await inspect({
      token: `  ${token}\n`,
      keySource: { type: 'text', text: jwksText(key, other) },
      expectedObj: 'DE02120300000000202051',
      expectedSub: 'ops@bank.example',
    });
    expect(r.checks.map((c) => c.id)).toEqual(CHECK_IDS.filter((id) => id !== 'lifetime' && id !== 'units'));
    expect(r.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(r.ok).toBe(true);
    expect(checkOf(r, 'nbf').status).toBe('skipped');
    expect(r.inspectedAt).toBe('2026-01-15T12:00:00.000Z');
    expect(r.header).toEqual({ alg: 'RS256', kid: key.kid, typ: 'JWT' });
    expect(r.payload).toEqual(claims());
    expect(r.segments?.header).toBe(token.split('.')[0]);
    expect(r.times).toEqual([
      {
        name: 'iat',
        value: NOW - 60,
        unit: 's',
        iso: '2026-01-15T11:59:00.000Z',
        relative: 'issued 1 min ago',
      },
      {
        name: 'exp',
        value: NOW + 240,
        unit: 's',
        iso: '2026-01-15T12:04:00.000Z',
        relative: 'expires in 4 min',
      },
    ]);
    expect(r.lifetimeSeconds).toBe(300);
    expect(adviceOf(r, 'lifetime')).toMatchObject({ level: 'ok', detail: '5 min from iat to exp' });
    expect(checkOf(r, 'signature').detail).toBe(`verified with key kid=${key.kid} (RS256)`);
    expect(checkOf(r, 'kid').detail).toContain(`kid "${key.kid}" found`);
    expect(checkOf(r, 'obj').detail).toContain('as expected');
    expect(r.keys).toEqual({
      source: 'jwks',
      description: expect.stringContaining('2 keys'),
      kids: [key.kid, other.kid],
    });
  });

  it('verifies PS256 too, and says the service itself uses RS256', async () => {
    const ps = await makeKey('ps-key', 'PS256');
    const r = await withKey(await sign(ps), jwksText(ps));
    expect(checkOf(r, 'alg')).toMatchObject({
      status: 'passed',
      detail: expect.stringContaining('service itself signs with RS256'),
    });
    expect(checkOf(r, 'signature').status).toBe('passed');
  });
});

describe('structure', () => {
  it('fails an empty token clearly and skips the rest', async () => {
    const r = await inspect({ token: '' });
    expect(r.checks[0]).toMatchObject({
      id: 'present',
      status: 'failed',
      detail: expect.stringContaining('token is empty'),
    });
    expect(r.checks.slice(1).every((c) => c.status === 'skipped')).toBe(true);
    expect(r.ok).toBe(false);
    expect(r.segments).toBeNull();
  });

  it('says a JWE-shaped input is a JWE, not a JWS', async () => {
    const r = await inspect({
      token: `${forge({ alg: 'RSA-OAEP', enc: 'A128GCM' }, '').split('.')[0]}.k.iv.ct.tag`,
    });
    expect(checkOf(r, 'structure')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/JWE.*not a JWS/),
    });
    expect(checkOf(r, 'alg')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('not a compact JWS'),
    });
  });

  it('runs header checks when only the payload is broken', async () => {
    const token = await sign(key);
    const [h, , s] = token.split('.');
    const r = await withKey(`${h}.bm90IGpzb24.${s}`); // "not json"
    expect(checkOf(r, 'structure')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^payload segment is not JSON/),
    });
    expect(checkOf(r, 'alg').status).toBe('passed');
    expect(checkOf(r, 'kid').status).toBe('passed');
    // The signature covers the bytes as sent: another payload does not verify.
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'failed',
      detail: expect.stringContaining('does not verify'),
    });
    expect(checkOf(r, 'exp')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('payload could not be decoded'),
    });
  });

  it('names the bad character in each segment', async () => {
    const [h, p, s] = (await sign(key)).split('.') as [string, string, string];
    const header = await withKey(`${h}=.${p}.${s}`);
    expect(checkOf(header, 'structure').detail).toMatch(/^header segment is not base64url: '=' padding/);
    expect(checkOf(header, 'alg')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('header could not be decoded'),
    });
    const payload = await withKey(`${h}.${p.slice(0, 10)}+${p.slice(11)}.${s}`);
    expect(checkOf(payload, 'structure').detail).toMatch(
      /^payload segment is not base64url: '\+'.*position 11/,
    );
    const sig = await withKey(`${h}.${p}.${s.slice(0, 3)}/${s.slice(4)}`);
    expect(checkOf(sig, 'structure').detail).toMatch(/^signature segment is not base64url: '\/'.*position 4/);
    expect(checkOf(sig, 'signature')).toMatchObject({
      status: 'failed',
      detail: expect.stringContaining('not base64url'),
    });
  });
});

describe('alg', () => {
  it('refuses alg none by name and never verifies it', async () => {
    const r = await withKey(forge({ alg: 'none', kid: key.kid }, claims()));
    expect(checkOf(r, 'alg')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^alg "none": an unsigned token/),
    });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('never verified'),
    });
    expect(r.ok).toBe(false);
  });

  it('refuses case variants of none too', async () => {
    const r = await inspect({ token: forge({ alg: 'nOnE' }, claims()) });
    expect(checkOf(r, 'alg').detail).toMatch(/^alg "nOnE": an unsigned token/);
  });

  it('refuses HS256 signed with the RSA public key PEM as the HMAC secret (algorithm confusion)', async () => {
    const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims())))
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .sign(new TextEncoder().encode(key.spki));
    const r = await withKey(token, key.spki);
    expect(checkOf(r, 'alg')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^alg HS256 is HMAC with a shared secret: never accepted.*public key as the HMAC secret/,
      ),
    });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('the alg is refused (see alg)'),
    });
  });

  it('refuses HS512 signed with the public JWK JSON bytes as the secret', async () => {
    const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims())))
      .setProtectedHeader({ alg: 'HS512', kid: key.kid })
      .sign(new TextEncoder().encode(JSON.stringify(key.jwk)));
    const r = await withKey(token, JSON.stringify(key.jwk));
    expect(checkOf(r, 'alg').detail).toMatch(/^alg HS512 is HMAC/);
    expect(checkOf(r, 'signature').status).toBe('skipped');
  });

  it('refuses other algorithms, naming what is allowed', async () => {
    const r = await inspect({ token: forge({ alg: 'ES256', kid: 'x' }, claims(), 'c2ln') });
    expect(checkOf(r, 'alg')).toMatchObject({
      status: 'failed',
      detail:
        'alg ES256 is not allowed: accepted are RS256, RS384, RS512, PS256, PS384, PS512; the service signs with RS256',
    });
  });

  it('fails a header without alg', async () => {
    const r = await inspect({ token: forge({ kid: 'x' }, claims(), 'c2ln') });
    expect(checkOf(r, 'alg')).toMatchObject({ status: 'failed', detail: 'the header has no alg' });
  });
});

describe('kid and signature', () => {
  it('skips the signature with the reason when no key source is given', async () => {
    const r = await inspect({ token: await sign(key) });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'skipped',
      detail: 'no key to verify with: paste a JWKS, JWK or PEM public key, or give a JWKS URL',
    });
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'passed',
      detail: expect.stringContaining('no key set given'),
    });
    expect(r.ok).toBe(true);
    expect(r.keys).toEqual({ source: 'none', description: 'no key given', kids: [] });
  });

  it('fails a token signed by another key with the right kid: "signed by another key?"', async () => {
    const impostor = { ...other, kid: key.kid };
    const r = await withKey(await sign(impostor));
    expect(checkOf(r, 'kid').status).toBe('passed');
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        new RegExp(`^does not verify with key kid=${key.kid}: signed by another key`),
      ),
    });
  });

  it('fails an unknown kid, listing the kids there are', async () => {
    const r = await withKey(await sign(other), jwksText(key));
    const expected = `kid "other-key" not found in the JWKS; kids there: "${key.kid}"`;
    expect(checkOf(r, 'kid')).toMatchObject({ status: 'failed', detail: expected });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'skipped',
      detail: 'not checked: kid failed first',
    });
    expect(r.ok).toBe(false);
  });

  it('fails a header without kid', async () => {
    const r = await withKey(await sign(key, claims(), { kid: undefined }));
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^the header has no kid/),
    });
  });

  it('fails when the key says another alg than the token', async () => {
    const rs512 = { ...key, jwk: { ...key.jwk, alg: 'RS512' } };
    const r = await withKey(await sign(key), jwksText(rs512));
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'failed',
      detail: `key kid=${key.kid} is for alg RS512, but the token says RS256: the key and the token disagree`,
    });
  });

  it('fails when the key source cannot be loaded, and says why', async () => {
    const r = await withKey(await sign(key), '{"kty": "RSA", "n": ');
    // The kid cannot be looked up: the same verdict (kid) the bank gives when its JWKS fails.
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/could not be loaded: the pasted key is not valid JSON/),
    });
    expect(checkOf(r, 'signature').status).toBe('skipped');
    expect(r.keys).toMatchObject({ source: 'text', error: expect.stringContaining('not valid JSON') });
  });

  it('fails an RS256 token whose signature segment is empty', async () => {
    const [h, p] = (await sign(key)).split('.');
    const r = await withKey(`${h}.${p}.`);
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'failed',
      detail: expect.stringContaining('signature segment is empty'),
    });
  });
});

describe('exp and iat', () => {
  const timed = (over: Record<string, unknown>) =>
    inspect({ token: forge({ alg: 'RS256', kid: 'k' }, claims(over), 'c2ln') });

  it('fails an expired token beyond the leeway, with relative wording', async () => {
    const r = await timed({ iat: NOW - 600, exp: NOW - 180 });
    expect(checkOf(r, 'exp')).toMatchObject({
      status: 'failed',
      detail: 'expired 3 min ago (2026-01-15T11:57:00.000Z), beyond the 60 s leeway',
    });
  });

  it('passes a token expired within the leeway, saying so', async () => {
    const r = await timed({ iat: NOW - 600, exp: NOW - 30 });
    expect(checkOf(r, 'exp')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/^expired 30 s ago .*within the 60 s leeway/),
    });
  });

  it('fails iat in the future beyond the leeway', async () => {
    const r = await timed({ iat: NOW + 300, exp: NOW + 600 });
    expect(checkOf(r, 'iat')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^issued in 5 min \(2026-01-15T12:05:00.000Z\): in the future beyond the 60 s leeway/,
      ),
    });
  });

  it('passes iat in the future within the leeway, saying so', async () => {
    const r = await timed({ iat: NOW + 45 });
    expect(checkOf(r, 'iat')).toMatchObject({
      status: 'passed',
      detail: expect.stringContaining('within the 60 s leeway'),
    });
  });

  it('fails missing exp and iat, and a string exp', async () => {
    const r = await timed({ exp: undefined, iat: undefined });
    expect(checkOf(r, 'exp')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^no exp claim/),
    });
    expect(checkOf(r, 'iat')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^no iat claim/),
    });
    expect(r.advice.map((a) => a.id)).toEqual([]);
    const s = await timed({ exp: String(NOW + 60) });
    expect(checkOf(s, 'exp').detail).toMatch(/^exp is a string \("\d+"\), not a number/);
    expect(adviceOf(s, 'units')).toMatchObject({
      level: 'warning',
      detail: 'exp is a string, not a number of seconds',
    });
  });
});

describe('nbf', () => {
  it('fails nbf in the future beyond the leeway and passes one in the past', async () => {
    const future = await inspect({
      token: forge({ alg: 'RS256', kid: 'k' }, claims({ nbf: NOW + 120 }), 'c2ln'),
    });
    expect(checkOf(future, 'nbf')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^becomes valid in 2 min .*not valid yet/),
    });
    const past = await inspect({
      token: forge({ alg: 'RS256', kid: 'k' }, claims({ nbf: NOW - 120 }), 'c2ln'),
    });
    expect(checkOf(past, 'nbf')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/^became valid 2 min ago/),
    });
  });
});

describe('lifetime and units', () => {
  const timed = (over: Record<string, unknown>) =>
    inspect({ token: forge({ alg: 'RS256', kid: 'k' }, claims(over), 'c2ln') });

  it('warns of iat = exp (the guide sample), a zero lifetime, without changing the verdict', async () => {
    const r = await timed({ iat: NOW, exp: NOW + 30 });
    expect(checkOf(r, 'exp').status).toBe('passed');
    const zero = await timed({ iat: NOW, exp: NOW });
    expect(adviceOf(zero, 'lifetime')).toMatchObject({
      level: 'warning',
      detail: expect.stringMatching(
        /^iat equals exp: zero lifetime \(the service guide's own sample does this\); the token is judged by exp alone \(with the 60 s leeway, see exp\)/,
      ),
    });
    expect(zero.lifetimeSeconds).toBe(0);
    expect(r.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('warns of a negative lifetime', async () => {
    const r = await timed({ iat: NOW, exp: NOW - 300 });
    expect(adviceOf(r, 'lifetime')).toMatchObject({
      level: 'warning',
      detail: expect.stringMatching(
        /^exp is 5 min before iat: negative lifetime; the token is judged by exp alone/,
      ),
    });
  });

  it('notes a lifetime longer than the sandbox accepts', async () => {
    const r = await timed({ iat: NOW - 60, exp: NOW + 86_400 });
    expect(adviceOf(r, 'lifetime')).toMatchObject({
      level: 'ok',
      detail: expect.stringContaining("longer than the 1 h the console's sandbox accepts"),
    });
  });

  it('judges millisecond timestamps as seconds, as every verifier does, and explains them in units', async () => {
    const iatMs = (NOW - 60) * 1000;
    const expMs = (NOW + 240) * 1000;
    const r = await timed({ iat: iatMs, exp: expMs });
    const units = adviceOf(r, 'units');
    expect(units.level).toBe('warning');
    expect(units.detail).toContain(`exp = ${expMs} looks like milliseconds`);
    expect(units.detail).toContain('as milliseconds: 2026-01-15T12:04:00.000Z');
    expect(units.detail).toContain('divide by 1000');
    expect(units.detail).toContain(`iat = ${iatMs} looks like milliseconds`);
    // RFC 7519: a NumericDate is seconds; read so, exp is tens of thousands of years away
    // (valid) and iat is far in the future (refused). The verdict is the one every verifier gives.
    const exp = checkOf(r, 'exp');
    expect(exp.status).toBe('passed');
    expect(exp.detail).toMatch(
      /looks like milliseconds \(as milliseconds: expires in 4 min, 2026-01-15T12:04:00.000Z\); read as seconds, as every verifier reads it: the year \d{5} \(see units\)/,
    );
    expect(checkOf(r, 'iat')).toMatchObject({
      status: 'failed',
      detail: expect.stringContaining('see units'),
    });
    expect(r.ok).toBe(false);
    // The times table reads them as milliseconds, and says so.
    expect(r.times[1]).toMatchObject({
      name: 'exp',
      unit: 'ms',
      iso: '2026-01-15T12:04:00.000Z',
      relative: 'expires in 4 min, if read as milliseconds',
    });
    expect(adviceOf(r, 'lifetime')).toMatchObject({
      level: 'ok',
      detail: expect.stringContaining('milliseconds'),
    });
  });

  it('fails a non-integer time (spec 2.4: integer), and explains it in units', async () => {
    const r = await timed({ iat: NOW - 60.5 });
    expect(checkOf(r, 'iat')).toMatchObject({
      status: 'failed',
      detail: `iat is ${NOW - 60.5}, not a whole number of seconds: spec 2.4 wants an integer`,
    });
    const e = await timed({ exp: NOW + 300.5 });
    expect(checkOf(e, 'exp').status).toBe('failed');
    expect(adviceOf(r, 'units')).toMatchObject({
      level: 'warning',
      detail: `iat = ${NOW - 60.5} is not a whole number of seconds (spec 2.4: integer)`,
    });
  });

  it('passes whole seconds', async () => {
    const r = await timed({ nbf: NOW - 60 });
    expect(adviceOf(r, 'units')).toMatchObject({
      level: 'ok',
      detail: 'iat, exp, nbf are whole seconds',
    });
  });
});

describe('flow, obj, sub', () => {
  const claimed = (
    over: Record<string, unknown>,
    expected: { expectedObj?: string; expectedSub?: string } = {},
  ) => inspect({ token: forge({ alg: 'RS256', kid: 'k' }, claims(over), 'c2ln'), ...expected });

  it('fails a wrong flow and a missing one', async () => {
    expect(checkOf(await claimed({ flow: 'login' }), 'flow')).toMatchObject({
      status: 'failed',
      detail: 'flow is "login", not "sign-in"',
    });
    expect(checkOf(await claimed({ flow: 'Sign-In' }), 'flow').detail).toContain('case- and space-sensitive');
    expect(checkOf(await claimed({ flow: undefined }), 'flow')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^no flow claim/),
    });
  });

  it('names a flow from the service guide as such', async () => {
    const r = await claimed({ flow: 'sign-up-emission' });
    expect(checkOf(r, 'flow')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^flow "sign-up-emission" is one of the service guide's other flows .*the spec fixes "sign-in"/,
      ),
    });
  });

  it('shows both values when obj or sub differ from the expected ones', async () => {
    const r = await claimed({}, { expectedObj: '+4915112345678', expectedSub: 'ops@bank.example' });
    expect(checkOf(r, 'obj')).toMatchObject({
      status: 'failed',
      detail: 'obj is "DE02120300000000202051", but "+4915112345678" was expected',
    });
    expect(checkOf(r, 'sub').status).toBe('passed');
    const s = await claimed({}, { expectedSub: 'someone@else' });
    expect(checkOf(s, 'sub')).toMatchObject({
      status: 'failed',
      detail: 'sub is "ops@bank.example", but "someone@else" was expected',
    });
  });

  it('fails empty, missing and non-string obj and sub', async () => {
    expect(checkOf(await claimed({ obj: '' }), 'obj')).toMatchObject({
      status: 'failed',
      detail: 'obj is empty',
    });
    expect(checkOf(await claimed({ sub: 42 }), 'sub')).toMatchObject({
      status: 'failed',
      detail: 'sub is a number, not a string',
    });
    expect(checkOf(await claimed({ sub: undefined }), 'sub').detail).toMatch(/^no sub claim/);
  });
});
