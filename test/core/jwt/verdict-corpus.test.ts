/**
 * One verdict for every token (issue 11): a corpus of tokens, signed here with node:crypto
 * directly (an implementation independent of jose and of the console's own signing), run through
 * every consumer of the verification engine:
 *
 * - the bank endpoints over real HTTP (GET /user_auth with X-Session-ID),
 * - the sandbox's authenticate over real HTTP (CX-Authorization),
 * - the inspector's core method (`inspectToken`, what the Inspector page calls),
 * - `dets-console jwt inspect --json` (the built CLI),
 *
 * asserting one and the same verdict and failed check id for each token. A role applies only the
 * checks it has inputs for: the sandbox has no customer directory, so a token whose only flaw is
 * an unknown obj or a foreign sub passes there (DESIGN.md "Sandbox service"), and the corpus says
 * so per token; every other verdict is the same everywhere.
 *
 * Issue 24 item 11 adds the classes an independent oracle found judged differently: a signature
 * one octet short (PS256 and RS256), a key the runtime cannot verify with (e over 2^64 with a
 * modulus over 3072 bits), a JWKS key whose n is standard base64, a blank obj, lifetimes of zero
 * or less, and white space around a header value or a pasted token.
 */
import { constants, createHmac, randomUUID, sign, type KeyObject } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectToken } from '../../../electron/core/jwt/inspect';
import {
  CUSTOMER,
  cleanup as cleanupBank,
  get,
  startBank,
  startJwksServer,
  type BankFixture,
} from '../bank/helpers';
import { call, cleanup as cleanupSandbox, startSandbox, type RunningSandbox } from '../sandbox/helpers';
import { runBuiltCli } from '../../cli/helpers';
import { rsaKeyPair } from '../../support/rsa-pair';
import { rsaKeyWithExponent } from './rsa-exponent-key';

type Alg = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512';
const HASH: Record<Alg, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
};

interface Pair {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwk: Record<string, string>;
}

function rsaPair(kid: string, publicExponent = 0x10001, modulusLength = 2048): Pair {
  const { privateKey, publicKey } = rsaKeyPair({ modulusLength, publicExponent });
  const pub = publicKey.export({ format: 'jwk' });
  // No alg in the JWK: one key verifies every RSA alg the corpus signs with.
  return {
    kid,
    privateKey,
    publicKey,
    jwk: { kty: 'RSA', n: String(pub.n), e: String(pub.e), kid, use: 'sig' },
  };
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function rawSignature(key: KeyObject, alg: Alg, input: string): Buffer {
  return alg.startsWith('PS')
    ? sign(HASH[alg], Buffer.from(input), {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: Number(alg.slice(2)) / 8,
      })
    : sign(HASH[alg], Buffer.from(input), key);
}

/** A compact JWS signed with node:crypto (RFC 7515 §7.1, RFC 7518 §3.3 and §3.5). */
function jws(key: KeyObject, alg: Alg, header: Record<string, unknown>, payload: unknown): string {
  const input = `${b64({ alg, typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${input}.${rawSignature(key, alg, input).toString('base64url')}`;
}

/**
 * A token whose signature's first octet is zero, sent with that octet stripped: one octet short
 * of the modulus (RFC 8017 §8.1.2 / §8.2.2). About one signature in 256 starts with a zero; the
 * jti varies (PSS is randomised anyway). Bounded at 5,000 tries (failing has odds below e^-19).
 */
function shortSignature(alg: Alg): string {
  for (let i = 0; i < 5000; i++) {
    const input = `${b64({ alg, typ: 'JWT', kid: service.kid })}.${b64(claims({ jti: `short-${i}` }))}`;
    const signature = rawSignature(service.privateKey, alg, input);
    if (signature[0] === 0) return `${input}.${signature.subarray(1).toString('base64url')}`;
  }
  throw new Error('no signature with a leading zero octet in 5,000 tries');
}

const now = () => Math.floor(Date.now() / 1000);
const claims = (over: Record<string, unknown> = {}) => ({
  flow: 'sign-in',
  obj: CUSTOMER.obj,
  sub: CUSTOMER.sub,
  iat: now() - 10,
  exp: now() + 290,
  ...over,
});

interface Case {
  name: string;
  token: () => string;
  /** The failed check every consumer names; null: accepted. */
  failed: string | null;
  /** The sandbox's verdict when it differs by role (it has no customer directory). */
  sandbox?: string | null;
}

let service: Pair;
let attacker: Pair;
let weak: Pair;
/** 3080 bits with e = 2^64 + 1: FIPS 186-5 allows it, this runtime's OpenSSL cannot verify with it. */
let wide: Pair;
/** A sound key published with its n in standard base64 (`+`, `/`, `=`). */
let stdB64: Pair;
let bank: BankFixture;
let sandbox: RunningSandbox;
let guid: string;
let jwksUrl: string;

const corpus: Case[] = [
  ...(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const).map((alg): Case => ({
    name: `valid ${alg}`,
    token: () => jws(service.privateKey, alg, { kid: service.kid }, claims()),
    failed: null,
  })),
  {
    name: 'alg none',
    token: () => `${b64({ alg: 'none', kid: service.kid })}.${b64(claims())}.`,
    failed: 'alg',
  },
  {
    name: 'HS256 keyed with the public key (algorithm confusion)',
    token: () => {
      const input = `${b64({ alg: 'HS256', kid: service.kid })}.${b64(claims())}`;
      const secret = service.publicKey.export({ type: 'spki', format: 'pem' });
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    },
    failed: 'alg',
  },
  {
    name: 'crit names an unknown extension',
    token: () =>
      jws(service.privateKey, 'RS256', { kid: service.kid, crit: ['x-bank'], 'x-bank': 1 }, claims()),
    failed: 'crit',
  },
  {
    name: 'right kid, another key',
    token: () => jws(attacker.privateKey, 'RS256', { kid: service.kid }, claims()),
    failed: 'signature',
  },
  {
    name: 'unknown kid',
    token: () => jws(attacker.privateKey, 'RS256', { kid: `nope-${randomUUID()}` }, claims()),
    failed: 'kid',
  },
  { name: 'no kid', token: () => jws(service.privateKey, 'RS256', {}, claims()), failed: 'kid' },
  {
    name: 'kid of a key with exponent 3 (left out of the key set)',
    token: () => jws(weak.privateKey, 'RS256', { kid: weak.kid }, claims()),
    failed: 'kid',
  },
  {
    name: 'jku pointing at the attacker, signed by the attacker',
    token: () =>
      jws(attacker.privateKey, 'RS256', { kid: service.kid, jku: 'http://127.0.0.1:9/jwks.json' }, claims()),
    failed: 'signature',
  },
  {
    name: 'x5u pointing at the attacker, signed by the attacker',
    token: () =>
      jws(attacker.privateKey, 'RS256', { kid: service.kid, x5u: 'http://127.0.0.1:9/cert.pem' }, claims()),
    failed: 'signature',
  },
  {
    name: "the attacker's own key embedded as jwk",
    token: () => jws(attacker.privateKey, 'RS256', { kid: service.kid, jwk: attacker.jwk }, claims()),
    failed: 'signature',
  },
  {
    name: 'expired beyond the leeway',
    token: () =>
      jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ iat: now() - 400, exp: now() - 120 })),
    failed: 'exp',
  },
  {
    name: 'exp not an integer (now + 300.5)',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ exp: now() + 300.5 })),
    failed: 'exp',
  },
  {
    name: 'exp a string',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ exp: String(now() + 300) })),
    failed: 'exp',
  },
  {
    name: 'iat in the future',
    token: () =>
      jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ iat: now() + 120, exp: now() + 400 })),
    failed: 'iat',
  },
  {
    name: 'nbf ten minutes in the future',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ nbf: now() + 600 })),
    failed: 'nbf',
  },
  {
    name: 'nbf in the past',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ nbf: now() - 30 })),
    failed: null,
  },
  {
    name: 'wrong flow',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ flow: 'sign-up' })),
    failed: 'flow',
  },
  {
    name: 'obj of the wrong type',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ obj: 12345 })),
    failed: 'obj',
  },
  {
    name: 'unknown obj',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ obj: 'DE999-unknown' })),
    failed: 'obj',
    sandbox: null,
  },
  {
    name: 'wrong sub',
    token: () =>
      jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ sub: 'mallory@evil.example' })),
    failed: 'sub',
    sandbox: null,
  },
  {
    name: 'sub of the wrong type',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ sub: ['ops'] })),
    failed: 'sub',
  },
  {
    name: 'payload not JSON',
    token: () => {
      const input = `${b64({ alg: 'RS256', kid: service.kid })}.${b64('not json at all')}`;
      return `${input}.${sign('sha256', Buffer.from(input), service.privateKey).toString('base64url')}`;
    },
    failed: 'structure',
  },
  { name: 'not a JWT', token: () => 'garbage', failed: 'structure' },
  // Issue 24 item 11.
  {
    name: 'PS256 signature one octet short (leading zero stripped)',
    token: () => shortSignature('PS256'),
    failed: 'signature',
  },
  {
    name: 'RS256 signature one octet short (leading zero stripped)',
    token: () => shortSignature('RS256'),
    failed: 'signature',
  },
  {
    name: 'PS256 signature one octet long (a zero octet prepended)',
    token: () => {
      const [h, p, sig] = jws(service.privateKey, 'PS256', { kid: service.kid }, claims()).split('.');
      return `${h}.${p}.${Buffer.concat([Buffer.alloc(1), Buffer.from(sig as string, 'base64url')]).toString('base64url')}`;
    },
    failed: 'signature',
  },
  {
    name: 'kid of a key this runtime cannot verify with (e = 2^64 + 1, 3080 bits: left out, never "signed by another key")',
    token: () => jws(wide.privateKey, 'RS256', { kid: wide.kid }, claims()),
    failed: 'kid',
  },
  {
    name: 'kid of a key published with a standard-base64 n (left out)',
    token: () => jws(stdB64.privateKey, 'RS256', { kid: stdB64.kid }, claims()),
    failed: 'kid',
  },
  {
    name: 'obj only white space',
    token: () => jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ obj: '   ' })),
    failed: 'obj',
  },
  // DESIGN.md caps the lifetime only from above: iat and exp relative to now, exp decides.
  ...(
    [
      ['zero lifetime (iat = exp, the guide sample) with exp ahead', 30, 30, null],
      ['zero lifetime with exp just past, within the leeway', -30, -30, null],
      ['negative lifetime with exp ahead', 50, 20, null],
      ['zero lifetime with exp past the leeway', -120, -120, 'exp'],
    ] as const
  ).map(([name, iat, exp, failed]): Case => ({
    name,
    token: () =>
      jws(service.privateKey, 'RS256', { kid: service.kid }, claims({ iat: now() + iat, exp: now() + exp })),
    failed,
  })),
];

beforeAll(async () => {
  service = rsaPair(`svc-${randomUUID().slice(0, 8)}`);
  attacker = rsaPair(`evil-${randomUUID().slice(0, 8)}`);
  weak = rsaPair(`weak-${randomUUID().slice(0, 8)}`, 3);
  const big = rsaKeyWithExponent(3080, (1n << 64n) + 1n);
  const wideKid = `wide-${randomUUID().slice(0, 8)}`;
  wide = {
    kid: wideKid,
    privateKey: big.privateKey,
    publicKey: big.publicKey,
    jwk: { kty: 'RSA', n: big.jwk.n as string, e: big.jwk.e as string, kid: wideKid, use: 'sig' },
  };
  stdB64 = rsaPair(`std-${randomUUID().slice(0, 8)}`);
  stdB64.jwk.n = Buffer.from(stdB64.jwk.n as string, 'base64url').toString('base64');
  const jwks = await startJwksServer([service.jwk, weak.jwk, wide.jwk, stdB64.jwk]);
  jwksUrl = jwks.url;
  bank = await startBank({ jwks, customers: [CUSTOMER] });
  sandbox = await startSandbox();
  const onboarded = await call(sandbox.url, 'POST', '/sandbox/v1/counterparties', {
    json: { jwk: service.jwk },
  });
  expect(onboarded.status, onboarded.text).toBe(201);
  guid = (onboarded.json as { counterparty_guid: string }).counterparty_guid;
  // Offered to the sandbox too (its own counterparty each): the rules refuse both (asserted
  // below), so their kids stay unknown there.
  for (const offered of [wide, stdB64]) {
    const r = await call(sandbox.url, 'POST', '/sandbox/v1/counterparties', { json: { jwk: offered.jwk } });
    registrations.push({ kid: offered.kid, status: r.status, text: r.text });
  }
}, 120_000);

const registrations: Array<{ kid: string; status: number; text: string }> = [];

afterAll(async () => {
  await cleanupBank();
  await cleanupSandbox();
});

interface Seen {
  ok: boolean;
  failed: string | null;
}

async function atBank(token: string): Promise<Seen> {
  const r = await get(`${bank.url}/user_auth`, token);
  if (r.status === 200) return { ok: true, failed: null };
  expect(r.status, r.text).toBe(401);
  return { ok: false, failed: (r.body as { check: string }).check };
}

async function atSandbox(token: string): Promise<Seen> {
  const r = await call(sandbox.url, 'POST', `/api/v1/counterparty/${guid}/jwk/authenticate`, { token });
  if (r.status === 200) return { ok: true, failed: null };
  expect(r.status, r.text).toBe(401);
  return { ok: false, failed: (r.json as { check?: string }).check ?? null };
}

const firstFailed = (checks: Array<{ id: string; status: string }>) =>
  checks.find((c) => c.status === 'failed')?.id ?? null;

async function atInspector(token: string): Promise<Seen> {
  const report = await inspectToken(
    {
      token,
      keySource: { type: 'jwks-url', url: jwksUrl },
      expectedObj: CUSTOMER.obj,
      expectedSub: CUSTOMER.sub,
    },
    { fetch },
  );
  return { ok: report.ok, failed: firstFailed(report.checks) };
}

async function atCli(token: string): Promise<Seen> {
  const r = await runBuiltCli([
    'jwt',
    'inspect',
    token,
    '--jwks-url',
    jwksUrl,
    '--obj',
    CUSTOMER.obj,
    '--sub',
    CUSTOMER.sub,
    '--json',
  ]);
  expect([0, 1], r.stderr).toContain(r.code);
  const report = JSON.parse(r.stdout) as { ok: boolean; checks: Array<{ id: string; status: string }> };
  expect(report.ok).toBe(r.code === 0);
  return { ok: report.ok, failed: firstFailed(report.checks) };
}

describe('one verdict for every token, in every consumer', () => {
  it.each(corpus.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const token = c.token();
    const expected: Seen = { ok: c.failed === null, failed: c.failed };
    const sandboxFailed = c.sandbox === undefined ? c.failed : c.sandbox;
    const [b, s, i, cli] = await Promise.all([
      atBank(token),
      atSandbox(token),
      atInspector(token),
      atCli(token),
    ]);
    expect({ bank: b, sandbox: s, inspector: i, cli }).toEqual({
      bank: expected,
      sandbox: { ok: sandboxFailed === null, failed: sandboxFailed },
      inspector: expected,
      cli: expected,
    });
  });

  it('the sandbox refused to register the key this runtime cannot use and the standard-base64 one', () => {
    expect(registrations).toEqual([
      {
        kid: wide.kid,
        status: 400,
        text: expect.stringMatching(/cannot be used by this runtime's OpenSSL/),
      },
      { kid: stdB64.kid, status: 400, text: expect.stringMatching(/n is not base64url/) },
    ]);
  });

  it('an absent or empty header fails `present` at the bank, the sandbox and the inspector', async () => {
    const bankAbsent = await get(`${bank.url}/user_auth`);
    expect(bankAbsent.status).toBe(401);
    expect((bankAbsent.body as { check: string }).check).toBe('present');
    const sandboxAbsent = await call(sandbox.url, 'POST', `/api/v1/counterparty/${guid}/jwk/authenticate`);
    expect(sandboxAbsent.status).toBe(401);
    expect((sandboxAbsent.json as { check: string }).check).toBe('present');
    const report = await inspectToken({ token: '' }, { fetch });
    expect(report.ok).toBe(false);
    expect(firstFailed(report.checks)).toBe('present');
  });
});

/**
 * One raw HTTP/1.1 request whose `name` header is written octet for octet (so a 0xA0 octet goes
 * out as it is): the status and the failed check of the answer. Bounded at 10 s.
 */
function rawRequest(url: string, method: string, path: string, name: string, value: Buffer): Promise<Seen> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (status === 200) resolve({ ok: true, failed: null });
      else if (status === 401) resolve({ ok: false, failed: /"check":"(\w+)"/.exec(text)?.[1] ?? null });
      else reject(new Error(`unexpected answer: ${text.slice(0, 200)}`));
    });
    const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Length: 0\r\n${name}: `;
    // Written, not ended: a half-closed request is one whose client left (Connection: close
    // makes the server close once it has answered).
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), value, Buffer.from('\r\n\r\n', 'latin1')]));
  });
}

describe('white space around the token: one verdict in every consumer (issue 24 item 11)', () => {
  const octets = (...parts: Array<string | number>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'number' ? Buffer.from([p]) : Buffer.from(p, 'latin1'))));
  const atBankRaw = (value: Buffer) => rawRequest(bank.url, 'GET', '/user_auth', 'X-Session-ID', value);
  const atSandboxRaw = (value: Buffer) =>
    rawRequest(
      sandbox.url,
      'POST',
      `/api/v1/counterparty/${guid}/jwk/authenticate`,
      'CX-Authorization',
      value,
    );

  it('SP and HTAB around a header value are not part of it; a pasted token loses ASCII white space', async () => {
    const token = jws(service.privateKey, 'RS256', { kid: service.kid }, claims());
    const value = octets(' \t ', token, '\t ');
    expect(await atBankRaw(value)).toEqual({ ok: true, failed: null });
    expect(await atSandboxRaw(value)).toEqual({ ok: true, failed: null });
    expect(await atInspector(` \t\r\n${token}\r\n`)).toEqual({ ok: true, failed: null });
    expect(await atCli(`\t${token} \n`)).toEqual({ ok: true, failed: null });
  });

  it.each([
    ['before', true],
    ['after', false],
  ])(
    'a 0xA0 octet (U+00A0) %s the token fails `structure` at the bank, the sandbox, the inspector and the CLI',
    async (_where, before) => {
      const token = jws(service.privateKey, 'RS256', { kid: service.kid }, claims());
      const value = before ? octets(0xa0, token) : octets(token, 0xa0);
      const pasted = before ? `\u00a0${token}` : `${token}\u00a0`;
      const failed: Seen = { ok: false, failed: 'structure' };
      expect({
        bank: await atBankRaw(value),
        sandbox: await atSandboxRaw(value),
        inspector: await atInspector(pasted),
        cli: await atCli(pasted),
      }).toEqual({ bank: failed, sandbox: failed, inspector: failed, cli: failed });
    },
  );

  it.each([
    ['U+FEFF', '\ufeff'],
    ['U+2028', '\u2028'],
    ['U+3000', '\u3000'],
  ])('%s around a pasted token fails `structure` in the inspector and the CLI', async (_name, ch) => {
    const token = jws(service.privateKey, 'RS256', { kid: service.kid }, claims());
    const failed: Seen = { ok: false, failed: 'structure' };
    expect({ inspector: await atInspector(`${ch}${token}`), cli: await atCli(`${token}${ch}`) }).toEqual({
      inspector: failed,
      cli: failed,
    });
  });
});
