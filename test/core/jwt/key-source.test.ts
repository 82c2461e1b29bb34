import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportPKCS8, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { fetchJwks } from '../../../electron/core/jwt/fetch-jwks';
import { keySetFromText } from '../../../electron/core/jwt/key-source';
import { checkOf, inspect, jwksText, makeKey, sign, type TestKey } from './fixtures';

let key: TestKey;
let other: TestKey;
let server: Server;
let base: string;
let closedPortUrl: string;

/** What each path of the test server answers. */
const routes: Record<string, { status?: number; type?: string; body: string | (() => string) }> = {};

beforeAll(async () => {
  key = await makeKey('svc-key-1');
  other = await makeKey('svc-key-2');
  routes['/jwks.json'] = { body: () => jwksText(key, other) };
  routes['/other.json'] = { body: () => jwksText(other) };
  routes['/html'] = { type: 'text/html', body: '<html>login</html>' };
  routes['/nokeys'] = { body: '{"kty":"RSA"}' };
  routes['/missing'] = { status: 404, type: 'text/plain', body: 'not here' };
  routes['/huge'] = { body: () => JSON.stringify({ keys: [], pad: 'x'.repeat(2048) }) };

  server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (!route) return void res.writeHead(500).end();
    const body = typeof route.body === 'function' ? route.body() : route.body;
    res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // A port that was open a moment ago and is closed now: connection refused.
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  closedPortUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/jwks.json`;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a JWKS URL', () => {
  it('verifies a token with the key the URL publishes', async () => {
    const r = await inspect(
      { token: await sign(other), keySource: { type: 'jwks-url', url: `${base}/jwks.json` } },
      fetch,
    );
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'passed',
      detail: `kid "svc-key-2" found in the JWKS at ${base}/jwks.json`,
    });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'passed',
      detail: 'verified with key kid=svc-key-2 (RS256)',
    });
    expect(r.keys).toEqual({
      source: 'jwks-url',
      description: `JWKS from ${base}/jwks.json: 2 keys (kids: "svc-key-1", "svc-key-2")`,
      kids: ['svc-key-1', 'svc-key-2'],
    });
    expect(r.ok).toBe(true);
  });

  it('fails a kid the JWKS does not have, listing the kids it has', async () => {
    const r = await inspect(
      { token: await sign(key), keySource: { type: 'jwks-url', url: `${base}/other.json` } },
      fetch,
    );
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'failed',
      detail: `kid "svc-key-1" not found in the JWKS at ${base}/other.json; kids there: "svc-key-2"`,
    });
    expect(checkOf(r, 'signature').status).toBe('skipped');
    expect(r.ok).toBe(false);
  });

  it('fails the kid with the URL and the network error when nothing listens', async () => {
    const r = await inspect(
      { token: await sign(key), keySource: { type: 'jwks-url', url: closedPortUrl } },
      fetch,
    );
    // The key set cannot be had, so the kid cannot be looked up: the bank's verdict too.
    const kid = checkOf(r, 'kid');
    expect(kid.status).toBe('failed');
    expect(kid.detail).toContain(`JWKS URL ${closedPortUrl} could not be fetched`);
    expect(kid.detail).toContain('ECONNREFUSED');
    expect(r.keys).toMatchObject({ source: 'jwks-url', error: expect.stringContaining('ECONNREFUSED') });
  });

  it('says an HTML answer is not JSON, with its content type', async () => {
    const r = await inspect(
      { token: await sign(key), keySource: { type: 'jwks-url', url: `${base}/html` } },
      fetch,
    );
    expect(checkOf(r, 'kid').detail).toMatch(
      new RegExp(`could not be loaded: JWKS from ${base}/html is not JSON \\(content-type text/html\\)`),
    );
  });

  it('says JSON without a keys array is not a JWK set', async () => {
    const r = await inspect(
      { token: await sign(key), keySource: { type: 'jwks-url', url: `${base}/nokeys` } },
      fetch,
    );
    expect(checkOf(r, 'kid').detail).toContain(
      `could not be loaded: JWKS from ${base}/nokeys is JSON without a "keys" array: not a JWK set`,
    );
  });

  it('reports the HTTP status of a failed answer', async () => {
    await expect(fetchJwks(`${base}/missing`, { fetch })).rejects.toMatchObject({
      code: 'JWKS_FETCH_FAILED',
      message: `JWKS URL ${base}/missing answered HTTP 404 Not Found, not 200`,
    });
  });

  it('refuses a body larger than maxBytes', async () => {
    await expect(fetchJwks(`${base}/huge`, { fetch, maxBytes: 1024 })).rejects.toMatchObject({
      code: 'JWKS_FETCH_FAILED',
      message: expect.stringContaining('more than 1024 bytes'),
    });
  });

  it('says when the server does not answer within the timeout', async () => {
    const hanging: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    await expect(fetchJwks(`${base}/jwks.json`, { fetch: hanging, timeoutMs: 10 })).rejects.toMatchObject({
      code: 'JWKS_FETCH_FAILED',
      message: `JWKS URL ${base}/jwks.json did not answer within 10 ms`,
    });
  });

  it('refuses a URL that is not http(s)', async () => {
    await expect(fetchJwks('file:///etc/passwd', { fetch })).rejects.toBeInstanceOf(ConsoleError);
  });
});

describe('pasted keys', () => {
  it('verifies with an SPKI PEM, used whatever the kid', async () => {
    const r = await inspect({ token: await sign(key), keySource: { type: 'text', text: key.spki } });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'passed',
      detail: 'verified with the pasted PEM key (RS256)',
    });
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'passed',
      detail: 'kid "svc-key-1" present; a PEM key has no kid, so it is used whatever the token\'s kid',
    });
    expect(r.keys).toMatchObject({
      source: 'pem',
      description: expect.stringMatching(/^pasted PEM SPKI public key \(RSA 2048-bit, JWK thumbprint /),
    });
  });

  it('verifies with a PKCS#1 "RSA PUBLIC KEY" PEM', async () => {
    const pkcs1 = createPublicKey(key.spki).export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(pkcs1).toContain('BEGIN RSA PUBLIC KEY');
    const r = await inspect({ token: await sign(key), keySource: { type: 'text', text: pkcs1 } });
    expect(checkOf(r, 'signature')).toMatchObject({ status: 'passed' });
    expect(r.keys.description).toMatch(/^pasted PEM PKCS#1 RSA public key/);
  });

  it('fails a PEM of another key: does not verify', async () => {
    const r = await inspect({ token: await sign(key), keySource: { type: 'text', text: other.spki } });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'failed',
      detail: 'does not verify with the pasted PEM key: signed by another key, or altered after signing?',
    });
  });

  // openssl makes the certificate; .ci/run installs it (Debian's openssl package).
  it('verifies with an X.509 certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dets-x509-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, 'k.pem'),
          '-out',
          join(dir, 'c.pem'),
          '-subj',
          '/CN=dets-test',
          '-days',
          '1',
        ],
        { stdio: 'ignore' },
      );
      const privateKey = await importPKCS8(readFileSync(join(dir, 'k.pem'), 'utf8'), 'RS256');
      const certKey = { ...key, kid: 'cert-key', privateKey };
      const r = await inspect({
        token: await sign(certKey),
        keySource: { type: 'text', text: readFileSync(join(dir, 'c.pem'), 'utf8') },
      });
      expect(checkOf(r, 'signature')).toMatchObject({ status: 'passed' });
      expect(r.keys.description).toMatch(/^pasted PEM X\.509 certificate/);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('verifies with a single JWK without kid, used whatever the kid', async () => {
    const { kid: _kid, ...noKid } = key.jwk;
    const r = await inspect({
      token: await sign(key),
      keySource: { type: 'text', text: JSON.stringify(noKid) },
    });
    expect(checkOf(r, 'signature')).toMatchObject({
      status: 'passed',
      detail: 'verified with the pasted JWK (no kid) (RS256)',
    });
    expect(checkOf(r, 'kid').detail).toContain("the JWK has no kid, so it is used whatever the token's kid");
    expect(r.keys).toMatchObject({ source: 'jwk', kids: [] });
  });

  it('verifies with a single JWK with the kid, and one in a {data: JWK} body', async () => {
    const one = await inspect({
      token: await sign(key),
      keySource: { type: 'text', text: JSON.stringify(key.jwk) },
    });
    expect(checkOf(one, 'signature').status).toBe('passed');
    const data = await inspect({
      token: await sign(key),
      keySource: { type: 'text', text: JSON.stringify({ data: key.jwk }) },
    });
    expect(checkOf(data, 'signature').status).toBe('passed');
  });

  it('refuses a pasted private JWK, and says to paste the public part', async () => {
    const r = await inspect({
      token: await sign(key),
      keySource: { type: 'text', text: JSON.stringify(key.privateJwk) },
    });
    const kid = checkOf(r, 'kid');
    expect(kid.status).toBe('failed');
    expect(kid.detail).toMatch(
      /could not be loaded: the pasted JWK is a private key \(it has d, p, q, dp, dq, qi\): it is refused, never used; paste only the public part/,
    );
    // The private material is never echoed back.
    expect(JSON.stringify(r)).not.toContain(String(key.privateJwk.d));
  });

  it('refuses a JWKS holding a private key', async () => {
    const text = JSON.stringify({ keys: [other.jwk, key.privateJwk] });
    await expect(keySetFromText(text)).rejects.toMatchObject({
      code: 'KEY_INVALID',
      message: expect.stringContaining('keys[1] is a private key'),
    });
  });

  it('refuses a private PEM by name', async () => {
    const pem = await exportPKCS8(key.privateKey);
    const r = await inspect({ token: await sign(key), keySource: { type: 'text', text: pem } });
    expect(checkOf(r, 'kid').detail).toMatch(
      /could not be loaded: this is a private key \(PEM "PRIVATE KEY"\): it is refused, never used; paste the public part/,
    );
    expect(JSON.stringify(r)).not.toContain(pem.split('\n')[1]);
  });

  it('refuses a symmetric JWK', async () => {
    await expect(keySetFromText('{"kty":"oct","k":"c2VjcmV0"}')).rejects.toMatchObject({
      message: expect.stringContaining('symmetric (oct) secret key'),
    });
  });

  it('says what is wrong with a bad PEM', async () => {
    await expect(
      keySetFromText('-----BEGIN PUBLIC KEY-----\nnot*base64\n-----END PUBLIC KEY-----'),
    ).rejects.toMatchObject({
      code: 'KEY_INVALID',
      message: `PEM "PUBLIC KEY" body is not base64: '*' is not a base64 character`,
    });
    await expect(
      keySetFromText('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/^the PEM SPKI public key could not be read as an RSA key/),
    });
    await expect(keySetFromText('-----BEGIN PUBLIC KEY-----\nAAAA')).rejects.toMatchObject({
      message: expect.stringContaining('no complete PEM block'),
    });
  });

  it('says what pasted JSON is missing', async () => {
    await expect(keySetFromText('{"keys": {}}')).rejects.toMatchObject({
      message: 'the pasted JWKS: "keys" is not an array',
    });
    await expect(keySetFromText('{"hello": 1}')).rejects.toMatchObject({
      message: expect.stringContaining('neither a JWKS (no "keys" array) nor a JWK'),
    });
    await expect(keySetFromText('hello')).rejects.toMatchObject({
      message: expect.stringContaining('neither JSON'),
    });
  });

  it('fails an EC key for an RS256 token', async () => {
    const ec = {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      kid: key.kid,
    };
    const r = await inspect({
      token: await sign(key),
      keySource: { type: 'text', text: JSON.stringify({ keys: [ec] }) },
    });
    // An EC key is left out of the set and named: the kid is there, but not as a usable key.
    expect(checkOf(r, 'kid')).toMatchObject({
      status: 'failed',
      detail: expect.stringContaining(`but it was left out: key kid=${key.kid} has kty "EC", not "RSA"`),
    });
  });

  it('picks, among keys sharing a kid, the one for the token alg', async () => {
    const rs512 = { ...other.jwk, kid: key.kid, alg: 'RS512' };
    const r = await inspect({
      token: await sign(key),
      keySource: { type: 'text', text: JSON.stringify({ keys: [rs512, key.jwk] }) },
    });
    expect(checkOf(r, 'signature').status).toBe('passed');
  });
});
