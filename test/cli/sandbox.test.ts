/**
 * `dets-console sandbox` as a bank's CI would drive it (DESIGN.md "Command line" and "Sandbox
 * service"): the built CLI in its own process, the --json ready line, the spec's endpoints with
 * real jose keys and tokens, exit codes, a damaged state file left alone, and a clean stop.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT, createRemoteJWKSet, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import { describe, expect, it } from 'vitest';
import { slowPost } from '../headless/http-client';
import { withBusyPort } from '../support/free-port';
import { cliTestFile, failedRun, type SpawnedCli } from './support/spawn-cli';
import { jwkOf } from '../support/rsa-pair';

const cli = cliTestFile('dets-sandbox-cli-');
const { dataDir } = cli;

const sandbox = (args: string[], env: NodeJS.ProcessEnv = {}): SpawnedCli =>
  cli.spawn(['sandbox', ...args], env);

/** `sandbox --port 0 --json --data-dir DIR`, and its base URL from the ready line. */
async function startSandbox(dir: string): Promise<{ s: SpawnedCli; base: string }> {
  const s = sandbox(['--port', '0', '--json', '--data-dir', dir]);
  return { s, base: String((await s.ready).sandbox) };
}

/** A bank's RS256 key: the public JWK with exactly the spec's fields (2.1), and a signer. */
async function bankKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const { n, e, kty } = jwkOf(publicKey);
  return {
    kid,
    jwk: { alg: 'RS256', e, kid, kty, n, use: 'sig' },
    sign: (claims: Record<string, unknown>, key: CryptoKey = privateKey) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key),
  };
}

const now = () => Math.floor(Date.now() / 1000);

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('dets-console sandbox --json', () => {
  it('prints one ready line and serves the spec: JWKS, onboarding, authenticate; SIGTERM exits 0', async () => {
    const dir = dataDir('flow');
    const s = sandbox(['--port', '0', '--json', '--data-dir', dir]);
    const line = await s.firstLine;
    const ready = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(ready)).toEqual(['ready', 'sandbox']);
    expect(ready.ready).toBe(true);
    expect(ready.sandbox).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const base = String(ready.sandbox);

    // Spec 4.1 #3: the service's public keys, each with a kid.
    const jwksRes = await fetch(`${base}/api/v1/.well-known/jwks.json`);
    expect(jwksRes.status).toBe(200);
    const jwks = (await jwksRes.json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'RSA', kid: expect.any(String), n: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }

    // Onboarding with a jose-made public JWK.
    const bank = await bankKey('bank-key-2025-01');
    const onboarded = await postJson(`${base}/sandbox/v1/counterparties`, { jwk: bank.jwk });
    expect(onboarded.status).toBe(201);
    expect(onboarded.body).toEqual({ counterparty_guid: expect.any(String), jwk_guid: expect.any(String) });
    const guid = String(onboarded.body.counterparty_guid);

    // Spec 4.1 #2: a bank JWT signed by that key gets a session_token signed by the sandbox.
    const iat = now();
    const claims = {
      flow: 'sign-in',
      obj: 'DE89370400440532013000',
      sub: 'ops@bank.example',
      iat,
      exp: iat + 300,
    };
    const authUrl = `${base}/api/v1/counterparty/${guid}/jwk/authenticate`;
    const authRes = await fetch(authUrl, {
      method: 'POST',
      headers: { 'CX-Authorization': await bank.sign(claims) },
    });
    expect(authRes.status).toBe(200);
    const { session_token } = (await authRes.json()) as { session_token: string };
    const verified = await jwtVerify(
      session_token,
      createRemoteJWKSet(new URL(`${base}/api/v1/.well-known/jwks.json`)),
    );
    expect(verified.protectedHeader.alg).toBe('RS256');
    expect(jwks.keys.map((k) => k.kid)).toContain(verified.protectedHeader.kid);

    // A token from a key that was never registered is refused with the documented body.
    const stranger = await bankKey('bank-key-2025-01');
    const refused = await fetch(authUrl, {
      method: 'POST',
      headers: { 'CX-Authorization': await stranger.sign(claims) },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: expect.any(String), detail: expect.any(String) });

    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(s.stdout).toBe(`${line}\n`);
    await expect(fetch(`${base}/api/v1/.well-known/jwks.json`)).rejects.toThrow();
  });

  it('keeps its counterparties across a restart on the same data directory', async () => {
    const dir = dataDir('restart');
    const first = await startSandbox(dir);
    const bank = await bankKey('bank-key-restart');
    const { body } = await postJson(`${first.base}/sandbox/v1/counterparties`, { jwk: bank.jwk });
    expect((await first.s.stop('SIGINT')).code).toBe(0);

    const second = await startSandbox(dir);
    const res = await fetch(`${second.base}/sandbox/v1/counterparties/${String(body.counterparty_guid)}`);
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('bank-key-restart');
    expect((await second.s.stop()).code).toBe(0);
  });

  it('finishes a request in flight when stopped', async () => {
    const { s, base } = await startSandbox(dataDir('in-flight'));
    const bank = await bankKey('bank-key-in-flight');
    const slow = slowPost(
      Number(new URL(base).port),
      '/sandbox/v1/counterparties',
      {},
      JSON.stringify({ jwk: bank.jwk }),
    );
    await slow.started;

    const stopped = s.stop();
    await s.waitForStderr('stopping');
    expect(s.child.exitCode).toBeNull();
    slow.finish();
    const res = await slow.response;
    expect(res.status).toBe(201);
    expect(await stopped).toEqual({ code: 0, signal: null });
  });
});

describe('dets-console sandbox without --json', () => {
  it('tells a person where it is, what it serves, how to onboard, and how to stop', async () => {
    const s = sandbox(['--port', '0', '--data-dir', dataDir('human')]);
    await s.firstLine;
    await new Promise<void>((resolve) => {
      const check = () => (s.stdout.includes('Ctrl-C') ? resolve() : setTimeout(check, 20));
      check();
    });
    const base = /Base URL: (http:\/\/127\.0\.0\.1:\d+)/.exec(s.stdout)?.[1];
    expect(base).toBeDefined();
    expect(s.stdout).toContain(`GET  ${base}/api/v1/.well-known/jwks.json`);
    expect(s.stdout).toContain('/api/v1/counterparty/{counterparty_guid}/jwk/authenticate');
    expect(s.stdout).toContain(`curl -sS -X POST ${base}/sandbox/v1/counterparties`);
    expect(s.stdout).toContain('Press Ctrl-C to stop.');
    expect(await s.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});

describe('dets-console sandbox: failures', () => {
  it.each([
    [['--port', 'abc'], '--port'],
    [['--port'], '--port'],
    [['--port', '65536'], '--port'],
    [['--nope'], '--nope'],
    [['--sandbox-port', '0'], '--sandbox-port'],
    [['--host', 'example.com'], '--host'],
    [['--data-dir', ''], '--data-dir'],
    [['extra'], 'extra'],
  ])('bad usage %j exits 2 with one line naming it', async (args, flag) => {
    const s = sandbox([
      '--json',
      ...args,
      ...(args.includes('--data-dir') ? [] : ['--data-dir', dataDir('bad')]),
    ]);
    const lines = await failedRun(s, 2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dets-console sandbox: /);
    expect(lines[0]).toContain(flag);
  });

  it('names --port and the port when it is in use (exit 2)', () =>
    withBusyPort(async (port) => {
      const s = sandbox(['--json', '--port', String(port), '--data-dir', dataDir('in-use')]);
      expect(await failedRun(s, 2)).toEqual([
        expect.stringMatching(new RegExp(`^dets-console sandbox: --port: port ${port} .*in use`)),
      ]);
    }));

  it('refuses a damaged state file with one clear line (exit 1) and leaves the file as it was', async () => {
    const dir = dataDir('damaged');
    const file = path.join(dir, 'sandbox', 'state.json');
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const damaged = '{"version": 1, "counterparties": [ {"counterparty_guid": ';
    await writeFile(file, damaged, { mode: 0o600 });
    const before = await stat(file);

    const lines = await failedRun(sandbox(['--json', '--port', '0', '--data-dir', dir]), 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dets-console sandbox: STATE_DAMAGED: /);
    expect(lines[0]).toContain(file);
    expect(await readFile(file, 'utf8')).toBe(damaged);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
  });
});
