import { generateKeyPairSync, createPublicKey, type KeyObject } from 'node:crypto';
import { chmodSync, chownSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { KeyInfo } from '../../../electron/contract/schemas/keys';
import { EventHub } from '../../../electron/core/event-hub';
import { createKeyStore, type KeyStore } from '../../../electron/core/keys';
import { privateMaterialIn, tempDir, testSealer, testVault } from './helpers';
import { jwkOf, rsaKeyPair } from '../../support/rsa-pair';

const SPEC_MEMBERS = ['alg', 'e', 'kid', 'kty', 'n', 'use'];
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 10, 9, 30);

let dataDir: string;
let clock: number;
let events: EventHub;
let changes: KeyInfo[][];
let store: KeyStore;
const sealer = testSealer();

function open(extra: { vault?: ReturnType<typeof testVault> } = {}): KeyStore {
  return createKeyStore({ dataDir, vault: extra.vault ?? testVault(sealer), events, now: () => clock });
}

beforeEach(() => {
  dataDir = tempDir();
  clock = T0;
  events = new EventHub();
  changes = [];
  events.on('keys.changed', (list) => changes.push(list));
  store = open();
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));

async function rejection(p: Promise<unknown>): Promise<ConsoleError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ConsoleError);
    return err as ConsoleError;
  }
  throw new Error('expected a rejection');
}

const keysFile = () => join(dataDir, 'keys', 'keys.json');

/** nobody on Debian (and most Linux systems); any uid without privileges would do. */
const NOBODY = 65534;

/**
 * Runs `task` as an unprivileged user. Not root: as itself. Root: the data folder is handed to
 * nobody (so its file modes are the only barrier) and this test process's effective uid and gid
 * become nobody's for the task (every thread, libuv's pool included), then root's again, whatever
 * happens. The saved set-user-ID stays 0, which is what lets it switch back.
 */
async function asUnprivileged<T>(dir: string, task: () => Promise<T>): Promise<T> {
  if (process.getuid?.() !== 0) return task();
  for (const p of [dir, join(dir, 'keys'), keysFile()]) chownSync(p, NOBODY, NOBODY);
  process.setegid!(NOBODY);
  process.seteuid!(NOBODY);
  try {
    expect(process.geteuid!()).toBe(NOBODY);
    return await task();
  } finally {
    process.seteuid!(0);
    process.setegid!(0);
  }
}
const exportJwk = async (s: KeyStore, kid: string) =>
  JSON.parse((await s.export({ kid, format: 'jwk' })).text) as Record<string, string>;
const modulusBits = (n: string) => Buffer.from(n, 'base64url').length * 8;

/** Verifies with the exported public JWK alone, as the service would. */
async function verifyWithExport(s: KeyStore, kid: string, token: string) {
  const jwk = await exportJwk(s, kid);
  const key = await importJWK(jwk, jwk.alg);
  return jwtVerify(token, key, { algorithms: [jwk.alg as string], currentDate: new Date(clock) });
}

const claims = () => ({
  flow: 'sign-in',
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  iat: T0 / 1000,
  exp: T0 / 1000 + 300,
});

describe('generate', () => {
  it.each([
    ['RS256', 2048],
    ['RS384', 3072],
    ['RS512', 4096],
    ['PS256', 2048],
  ] as const)('%s with %i bits: spec JWK, fingerprint, and a token that verifies', async (alg, bits) => {
    const info = await store.generate({ alg, bits });
    expect(KeyInfo.parse(info)).toEqual(info);
    expect(info).toMatchObject({
      alg,
      bits,
      status: 'active',
      label: '',
      expires: null,
      expires_in_days: null,
    });
    expect(info.kid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Object.keys(info.public_jwk)).toEqual(SPEC_MEMBERS);
    expect(info.public_jwk).toMatchObject({ alg, kid: info.kid, kty: 'RSA', use: 'sig', e: 'AQAB' });
    expect(modulusBits(info.public_jwk.n)).toBe(bits);
    expect(info.fingerprint).toBe(await calculateJwkThumbprint(info.public_jwk, 'sha256'));

    const token = await store.sign(info.kid, claims());
    const { payload, protectedHeader } = await verifyWithExport(store, info.kid, token);
    expect(protectedHeader).toEqual({ alg, kid: info.kid, typ: 'JWT' });
    expect(payload).toEqual(claims());
  });

  it('defaults to RS256 and 2048 bits, takes kid, label, counterparty and expiry', async () => {
    const info = await store.generate({
      kid: '54321',
      label: 'prod 2026',
      counterparty_guid: 'c0ffee00-0000-4000-8000-000000000001',
      expires: '2026-03-20',
    });
    expect(info).toMatchObject({
      kid: '54321',
      alg: 'RS256',
      bits: 2048,
      label: 'prod 2026',
      counterparty_guid: 'c0ffee00-0000-4000-8000-000000000001',
      expires: '2026-03-20',
      expires_in_days: 10,
      created_at: new Date(T0).toISOString(),
    });
    expect(await store.get('54321')).toEqual(info);
  });

  it('refuses a duplicate kid with CONFLICT and keeps the first key', async () => {
    const first = await store.generate({ kid: 'A1B2C3D4-E5F6-4711-8000-000000000000' });
    const err = await rejection(store.generate({ kid: first.kid }));
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain(first.kid);
    expect(await store.list()).toEqual([first]);
  });

  it('refuses an expiry in the past as a bad argument naming expires', async () => {
    const err = await rejection(store.generate({ expires: '2026-03-09' }));
    expect(err.code).toBe('BAD_ARGUMENT');
    expect(err.message).toMatch(/^expires: 2026-03-09 is in the past/);
    expect(err.details).toEqual({
      field: 'expires',
      issues: [{ path: ['expires'], message: expect.any(String) }],
    });
    expect(await store.list()).toEqual([]);
  });

  it('says what the vault says when it is locked, and writes nothing', async () => {
    const locked = open({ vault: testVault() });
    const err = await rejection(locked.generate({}));
    expect(err.code).toBe('VAULT_LOCKED');
    expect(() => statSync(keysFile())).toThrow();
  });
});

describe('status', () => {
  it('makes the first key active, later ones next; activating one retires the active one', async () => {
    const a = await store.generate({ kid: 'a' });
    const b = await store.generate({ kid: 'b' });
    expect([a.status, b.status]).toEqual(['active', 'next']);

    const activated = await store.update({ kid: 'b', status: 'active' });
    expect(activated.status).toBe('active');
    expect((await store.list()).map((k) => [k.kid, k.status])).toEqual([
      ['a', 'retired'],
      ['b', 'active'],
    ]);

    const c = await store.generate({ kid: 'c', status: 'active' });
    expect(c.status).toBe('active');
    expect((await store.list()).map((k) => k.status)).toEqual(['retired', 'retired', 'active']);
  });

  it('lets a retired key still sign (rotation needs the old key briefly)', async () => {
    await store.generate({ kid: 'old' });
    await store.generate({ kid: 'new', status: 'active' });
    expect((await store.get('old')).status).toBe('retired');
    const token = await store.sign('old', claims());
    await expect(verifyWithExport(store, 'old', token)).resolves.toBeTruthy();
  });

  it('updates label, expiry and counterparty; null clears the expiry', async () => {
    await store.generate({ kid: 'k', expires: '2026-04-01' });
    const updated = await store.update({ kid: 'k', label: 'renamed', counterparty_guid: 'g-1' });
    expect(updated).toMatchObject({
      label: 'renamed',
      counterparty_guid: 'g-1',
      expires: '2026-04-01',
      expires_in_days: 22,
    });
    expect((await store.update({ kid: 'k', expires: null })).expires).toBeNull();
  });

  it('refuses to update an unknown kid with NOT_FOUND listing the known ones', async () => {
    await store.generate({ kid: 'known' });
    const err = await rejection(store.update({ kid: 'nope', label: 'x' }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('"nope"');
    expect(err.message).toContain('"known"');
  });
});

describe('expiry', () => {
  it('counts days down, and an expired key refuses to sign naming the day', async () => {
    await store.generate({ kid: 'k', expires: '2026-03-12' });
    expect((await store.get('k')).expires_in_days).toBe(2);
    clock = T0 + 2 * DAY; // the last valid day still signs
    await expect(store.sign('k', claims())).resolves.toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    clock = T0 + 3 * DAY;
    expect((await store.get('k')).expires_in_days).toBe(-1);
    const err = await rejection(store.sign('k', claims()));
    expect(err.code).toBe('KEY_INVALID');
    expect(err.message).toContain('key "k" expired on 2026-03-12');
  });

  it('will not make an expired key active', async () => {
    await store.generate({ kid: 'a' });
    await store.generate({ kid: 'b', expires: '2026-03-11' });
    clock = T0 + 5 * DAY;
    const err = await rejection(store.update({ kid: 'b', status: 'active' }));
    expect(err.code).toBe('KEY_INVALID');
    expect((await store.get('a')).status).toBe('active');
  });
});

// ---------------------------------------------------------------------------------- import

function rsa(bits = 2048): { privateKey: KeyObject; publicKey: KeyObject } {
  return rsaKeyPair({ modulusLength: bits });
}

function publicParts(k: KeyObject) {
  const jwk = createPublicKey(k).export({ format: 'jwk' });
  return { n: jwk.n, e: jwk.e };
}

describe('import', () => {
  const forms = {
    'PEM PKCS#8': (k: KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }) as string,
    'PEM PKCS#1': (k: KeyObject) => k.export({ type: 'pkcs1', format: 'pem' }) as string,
    'private JWK': (k: KeyObject) => JSON.stringify(k.export({ format: 'jwk' })),
  };

  it.each(Object.keys(forms) as Array<keyof typeof forms>)(
    '%s: the exported JWK has exactly the spec fields and the original public part; tokens verify',
    async (form) => {
      const { privateKey, publicKey } = rsa();
      const info = await store.import({ text: forms[form](privateKey), kid: `imported-${form.length}` });
      expect(info.bits).toBe(2048);
      expect(info.alg).toBe('RS256');
      const jwk = await exportJwk(store, info.kid);
      expect(Object.keys(jwk)).toEqual(SPEC_MEMBERS);
      expect(jwk).toEqual({
        alg: 'RS256',
        ...publicParts(privateKey),
        kid: info.kid,
        kty: 'RSA',
        use: 'sig',
      });

      const token = await store.sign(info.kid, claims());
      const { payload } = await jwtVerify(token, publicKey, { currentDate: new Date(clock) });
      expect(payload).toEqual(claims());
    },
  );

  it('takes kid and alg from a private JWK, and a PS256 key signs PS256', async () => {
    const { privateKey, publicKey } = rsa(3072);
    const text = JSON.stringify({
      ...privateKey.export({ format: 'jwk' }),
      kid: 'bank-2026',
      alg: 'PS256',
      use: 'sig',
    });
    const info = await store.import({ text });
    expect(info).toMatchObject({ kid: 'bank-2026', alg: 'PS256', bits: 3072 });
    const token = await store.sign('bank-2026', claims());
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'PS256', kid: 'bank-2026', typ: 'JWT' });
    await expect(jwtVerify(token, publicKey, { currentDate: new Date(clock) })).resolves.toBeTruthy();
  });

  it('takes a JWK set holding exactly one private key', async () => {
    const { privateKey } = rsa();
    const info = await store.import({
      text: JSON.stringify({ keys: [privateKey.export({ format: 'jwk' })] }),
      kid: 'one',
    });
    expect(info.kid).toBe('one');
  });

  it('refuses the same key twice (CONFLICT naming the stored kid)', async () => {
    const { privateKey } = rsa();
    await store.import({ text: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, kid: 'first' });
    const err = await rejection(
      store.import({ text: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string, kid: 'second' }),
    );
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain('"first"');
  });

  it('refuses a JWK whose alg disagrees with the one asked for', async () => {
    const { privateKey } = rsa();
    const text = JSON.stringify({ ...privateKey.export({ format: 'jwk' }), alg: 'RS512' });
    const err = await rejection(store.import({ text, alg: 'RS256' }));
    expect(err.code).toBe('KEY_INVALID');
    expect(err.message).toContain('RS512');
  });

  describe('refuses what is not a private RSA key of 2048+ bits, saying what it is, without echoing it', () => {
    const { privateKey, publicKey } = rsa();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ed = generateKeyPairSync('ed25519');
    const small = rsa(1024);
    const privateJwk = privateKey.export({ format: 'jwk' });
    const { p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...withoutCrt } = privateJwk;
    const cert = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ0==\n-----END CERTIFICATE-----\n';
    const cases: Array<[string, string, RegExp]> = [
      [
        'a public PEM',
        publicKey.export({ type: 'spki', format: 'pem' }) as string,
        /public key \(PEM "PUBLIC KEY"\)/,
      ],
      [
        'a PKCS#1 public PEM',
        publicKey.export({ type: 'pkcs1', format: 'pem' }) as string,
        /public key \(PEM "RSA PUBLIC KEY"\)/,
      ],
      ['a public JWK', JSON.stringify(publicKey.export({ format: 'jwk' })), /public JWK \(no "d"\)/],
      [
        'an EC key in PKCS#8',
        ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        /holds an EC key \(prime256v1\).*RSA keys only/,
      ],
      [
        'an EC key in SEC1',
        ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string,
        /EC private key \(PEM "EC PRIVATE KEY"\).*RSA keys only/,
      ],
      ['an EC JWK', JSON.stringify(jwkOf(ec.privateKey)), /kty "EC".*RSA keys only/],
      [
        'an Ed25519 key',
        ed.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        /holds an ed25519 key/,
      ],
      [
        'an encrypted PKCS#8 PEM',
        privateKey.export({
          type: 'pkcs8',
          format: 'pem',
          cipher: 'aes-256-cbc',
          passphrase: 'secret passphrase',
        }) as string,
        /encrypted private key \(PEM "ENCRYPTED PRIVATE KEY"\).*openssl pkey/,
      ],
      [
        'an encrypted PKCS#1 PEM',
        privateKey.export({
          type: 'pkcs1',
          format: 'pem',
          cipher: 'aes-256-cbc',
          passphrase: 'secret passphrase',
        }) as string,
        /encrypted private key \(PEM "RSA PRIVATE KEY" with Proc-Type ENCRYPTED\)/,
      ],
      ['a certificate', cert, /certificate \(PEM "CERTIFICATE"\).*only a public key/],
      [
        'a 1024-bit RSA key',
        small.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        /breaks the RSA key rules: the RSA modulus has 1024 bits; at least 2048 are required/,
      ],
      ['a JWK without p, q, dp, dq, qi', JSON.stringify(withoutCrt), /lacks "p", "q", "dp", "dq", "qi"/],
      [
        'a JWK whose n does not match',
        JSON.stringify({ ...privateJwk, n: rsa().publicKey.export({ format: 'jwk' }).n }),
        /does not match its own public part|do not form an RSA private key/,
      ],
      ['garbage', 'hello, this is not a key', /neither PEM nor JSON/],
      ['broken JSON', '{"kty": "RSA", "d": "c2VjcmV0LWQ"', /starts like JSON but is not valid JSON/],
      [
        'a truncated PEM',
        (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string).slice(0, 200),
        /incomplete PEM/,
      ],
      [
        'a damaged PEM body',
        (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string).replace(
          /\n[A-Za-z0-9+/]{64}\n/,
          '\nAAAA\n',
        ),
        /could not be read: its body is not a valid key/,
      ],
      ['an OpenSSH public key', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ user@host', /OpenSSH public key/],
    ];
    it.each(cases)('%s', async (_name, text, message) => {
      const err = await rejection(store.import({ text }));
      expect(err.code).toBe('KEY_INVALID');
      expect(err.message).toMatch(message);
      // Nothing of the input comes back: no base64 run longer than a word, no "d".
      expect(err.message).not.toMatch(/[A-Za-z0-9+/_-]{40,}/);
      expect(err.message).not.toContain(String(privateJwk.d).slice(0, 16));
      expect(err.message).not.toContain('c2VjcmV0LWQ');
      expect(await store.list()).toEqual([]);
    });
  });
});

describe('the RSA key rules (DESIGN.md "Bank endpoints")', () => {
  const e3 = rsaKeyPair({ modulusLength: 2048, publicExponent: 3 }).privateKey;
  const short = rsa(1024).privateKey;
  const forms: Array<[string, (k: KeyObject) => string]> = [
    ['PEM PKCS#8', (k) => k.export({ type: 'pkcs8', format: 'pem' }) as string],
    ['PEM PKCS#1', (k) => k.export({ type: 'pkcs1', format: 'pem' }) as string],
    ['private JWK', (k) => JSON.stringify(k.export({ format: 'jwk' }))],
  ];
  const cases = forms.flatMap(([form, text]) => [
    [
      `${form} with e = 3`,
      text(e3),
      /breaks the RSA key rules: the RSA public exponent is 3; it must be odd and between 2\^16 and 2\^256/,
    ] as const,
    [
      `${form} of 1024 bits`,
      text(short),
      /breaks the RSA key rules: the RSA modulus has 1024 bits; at least 2048 are required/,
    ] as const,
  ]);

  it.each(cases)(
    'import refuses %s naming the rule, and loses nothing already stored',
    async (_n, text, rule) => {
      const kept = await store.import({ text: forms[0]![1](rsa().privateKey), kid: 'kept' });
      const before = readFileSync(keysFile(), 'utf8');
      const err = await rejection(store.import({ text, kid: 'refused' }));
      expect(err.code).toBe('KEY_INVALID');
      expect(err.message).toMatch(rule);
      expect(err.message.split('\n')).toHaveLength(1);
      expect(readFileSync(keysFile(), 'utf8')).toBe(before);
      expect((await store.list()).map((k) => k.kid)).toEqual([kept.kid]);
    },
  );

  it('import takes a 2048-bit key with e = 65537 and a 4096-bit one', async () => {
    expect((await store.import({ text: forms[0]![1](rsa().privateKey) })).bits).toBe(2048);
    expect((await store.import({ text: forms[2]![1](rsa(4096).privateKey) })).bits).toBe(4096);
  });

  it('generate refuses fewer than 2048 bits even from a core caller that skips the schema', async () => {
    const err = await rejection(store.generate({ bits: 1024 as 2048, kid: 'short' }));
    expect(err.code).toBe('BAD_ARGUMENT');
    expect(err.message).toBe('bits: the RSA modulus has 1024 bits; at least 2048 are required');
    expect(await store.list()).toEqual([]);
  });

  it('generated keys keep the rules: e = 65537 (AQAB)', async () => {
    const info = await store.generate({ kid: 'fresh' });
    expect(info.public_jwk.e).toBe('AQAB');
  });
});

// ---------------------------------------------------------------------------------- export

describe('export', () => {
  it('gives the spec JWK, a JWKS and SPKI PEM, with a file name and a mime type', async () => {
    const info = await store.generate({ kid: 'Bank/Key:1' });
    const jwk = await store.export({ kid: info.kid, format: 'jwk' });
    expect(jwk.mime).toBe('application/jwk+json');
    expect(jwk.filename).toBe('Bank_Key_1.jwk.json');
    expect(jwk.text).toBe(`${JSON.stringify(info.public_jwk, null, 2)}\n`);
    expect(jwk.text.indexOf('"alg"')).toBeLessThan(jwk.text.indexOf('"e"'));

    const jwks = await store.export({ kid: info.kid, format: 'jwks' });
    expect(JSON.parse(jwks.text)).toEqual({ keys: [info.public_jwk] });
    expect(jwks).toMatchObject({ filename: 'Bank_Key_1.jwks.json', mime: 'application/jwk-set+json' });

    const pem = await store.export({ kid: info.kid, format: 'pem' });
    expect(pem.text).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    expect(pem).toMatchObject({ filename: 'Bank_Key_1.pub.pem', mime: 'application/x-pem-file' });
    expect(createPublicKey(pem.text).export({ format: 'jwk' })).toEqual({
      kty: 'RSA',
      n: info.public_jwk.n,
      e: 'AQAB',
    });
  });

  it('answers NOT_FOUND for an unknown kid', async () => {
    expect((await rejection(store.export({ kid: 'missing', format: 'jwk' }))).code).toBe('NOT_FOUND');
  });
});

// ---------------------------------------------------------------------------------- delete

describe('delete', () => {
  it('removes a key (confirm: true) and its kid no longer signs', async () => {
    await store.generate({ kid: 'gone' });
    await store.generate({ kid: 'kept' });
    await store.delete({ kid: 'gone', confirm: true });
    expect((await store.list()).map((k) => k.kid)).toEqual(['kept']);
    expect((await rejection(store.sign('gone', claims()))).code).toBe('NOT_FOUND');
  });

  it('refuses without confirm', async () => {
    await store.generate({ kid: 'k' });
    const err = await rejection(store.delete({ kid: 'k', confirm: false as unknown as true }));
    expect(err.code).toBe('BAD_ARGUMENT');
    expect(await store.list()).toHaveLength(1);
  });
});

// ------------------------------------------------------------------- storage, events, secrets

describe('storage', () => {
  it('emits keys.changed with the whole list on every change', async () => {
    await store.generate({ kid: 'a' });
    await store.generate({ kid: 'b' });
    await store.update({ kid: 'b', status: 'active' });
    await store.delete({ kid: 'a', confirm: true });
    expect(changes.map((list) => list.map((k) => `${k.kid}:${k.status}`))).toEqual([
      ['a:active'],
      ['a:active', 'b:next'],
      ['a:retired', 'b:active'],
      ['b:active'],
    ]);
    await store.sign('b', claims());
    await store.export({ kid: 'b', format: 'pem' });
    expect(changes).toHaveLength(4);
  });

  it('keeps keys.json 0600 in a 0700 folder, and a second store (another process) sees the same keys', async () => {
    const a = await store.generate({ kid: 'shared' });
    if (process.platform !== 'win32') {
      expect(statSync(join(dataDir, 'keys')).mode & 0o777).toBe(0o700);
      expect(statSync(keysFile()).mode & 0o777).toBe(0o600);
    }
    const other = open();
    expect(await other.list()).toEqual([a]);
    const token = await other.sign('shared', claims());
    await expect(verifyWithExport(store, 'shared', token)).resolves.toBeTruthy();
  });

  it('runs concurrent changes one at a time without losing any', async () => {
    await Promise.all(['a', 'b', 'c', 'd'].map((kid) => store.generate({ kid })));
    expect((await store.list()).map((k) => k.kid).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect((await store.list()).filter((k) => k.status === 'active')).toHaveLength(1);
  });

  it.each([
    ['not JSON', '{"version": 1, "keys": ['],
    ['the wrong shape', '{"version": 1, "keys": [{"kid": "x"}]}'],
    ['two active keys', null],
  ])(
    'reports a keys.json that is %s as STATE_DAMAGED naming it, and leaves it untouched',
    async (_what, text) => {
      await store.generate({ kid: 'a' });
      await store.generate({ kid: 'b' });
      const original = readFileSync(keysFile(), 'utf8');
      const damagedText = text ?? original.replace('"status": "next"', '"status": "active"');
      writeFileSync(keysFile(), damagedText);
      const before = statSync(keysFile()).mtimeMs;

      for (const attempt of [
        () => store.list(),
        () => store.generate({ kid: 'c' }),
        () => store.update({ kid: 'a', label: 'x' }),
        () => store.delete({ kid: 'a', confirm: true }),
        () => store.sign('a', claims()),
      ]) {
        const err = await rejection(attempt());
        expect(err.code).toBe('STATE_DAMAGED');
        expect(err.message).toContain(keysFile());
      }
      expect(readFileSync(keysFile(), 'utf8')).toBe(damagedText);
      expect(statSync(keysFile()).mtimeMs).toBe(before);
    },
  );

  it('binds each sealed private key to its kid: swapped blobs do not open', async () => {
    await store.generate({ kid: 'a' });
    await store.generate({ kid: 'b' });
    const doc = JSON.parse(readFileSync(keysFile(), 'utf8')) as {
      keys: Array<{ sealed_private_key: string }>;
    };
    const [ka, kb] = doc.keys as [{ sealed_private_key: string }, { sealed_private_key: string }];
    [ka.sealed_private_key, kb.sealed_private_key] = [kb.sealed_private_key, ka.sealed_private_key];
    writeFileSync(keysFile(), JSON.stringify(doc));
    const err = await rejection(store.sign('a', claims()));
    expect(err.code).toBe('KEY_INVALID');
    expect(err.message).toContain('could not be opened');
  });

  // Issue 24 item 12: this used to return early as root (as CI runs), passing without a check.
  // Root reads a mode-000 file (CAP_DAC_OVERRIDE), so as root the test asserts that, and then
  // drops to nobody's effective ids for the read that must fail (asUnprivileged). POSIX only:
  // a platform without uids fails here, never passes silently.
  it('reports an unreadable keys.json as STATE_DAMAGED, naming the file and the error, and leaves it untouched', async () => {
    if (process.getuid === undefined) throw new Error('this test needs POSIX file modes and uids');
    const text = '{"version":1,"keys":[]}';
    mkdirSync(join(dataDir, 'keys'), { recursive: true });
    writeFileSync(keysFile(), text);
    chmodSync(keysFile(), 0o000);
    if (process.getuid() === 0) {
      // What a root process does get: the file is read whatever its mode.
      expect(await store.list()).toEqual([]);
    }
    const err = await asUnprivileged(dataDir, () => rejection(store.list()));
    expect(err.code).toBe('STATE_DAMAGED');
    expect(err.message).toContain(keysFile());
    expect(err.message).toContain('could not be read (EACCES)');
    chmodSync(keysFile(), 0o600);
    expect(readFileSync(keysFile(), 'utf8')).toBe(text);
  });

  it('writes no private key material anywhere under the data folder', async () => {
    const generated = await store.generate({ kid: 'gen', alg: 'PS256' });
    const { privateKey } = rsa();
    await store.import({ text: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string, kid: 'imp' });
    await store.sign('gen', claims());
    await store.sign('imp', claims());

    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'der' });
    const jwk = privateKey.export({ format: 'jwk' });
    // Slices from the DER's second half: the private exponent and primes (the first half holds
    // the public modulus, which keys.json rightly contains as the JWK's n).
    const tail = (buf: Buffer) => buf.subarray(buf.length - 300);
    const secrets = [
      tail(der).toString('base64').slice(0, 60),
      tail(pkcs1).toString('base64').slice(0, 60),
      tail(der).toString('base64url').slice(0, 60),
      tail(der).subarray(0, 60).toString('latin1'),
      String(jwk.d).slice(0, 40),
      String(jwk.p).slice(0, 40),
      String(jwk.q).slice(0, 40),
    ];
    expect(privateMaterialIn(dataDir, secrets)).toEqual([]);
    // The generated key's private part never left WebCrypto in clear: only its sealed blob is stored.
    const stored = readFileSync(keysFile(), 'utf8');
    expect(stored).toContain(generated.public_jwk.n);
    expect(stored).not.toMatch(/"(d|p|q|dp|dq|qi)"\s*:/);
  });
});
