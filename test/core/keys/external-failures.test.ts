/**
 * Issue 29 item 4: a key held elsewhere whose command fails in each way the issue names (not
 * found, non-zero exit, timeout, empty, wrong length, a signature that does not verify) gets its
 * own message naming the key and the command, and nothing is sent to the service: the fake
 * service below (a real HTTP server on 127.0.0.1) records every request it gets. The stand-in
 * command (test/fixtures/external-signer/stand-in.mjs) signs with a real RSA key while the key
 * is added, then is switched to the failure under test. The rotation generates a vault key
 * first, so run this file inside scripts/with-keyring.sh.
 */
import { readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { rsaKeyPair } from '../../support/rsa-pair';
import { startFakeServer, type FakeServer } from '../../support/fake-server';
import { tempCore, valueOf } from '../../support/temp-core';
import { tempDir } from './helpers';
import { createVerify } from 'node:crypto';

const STAND_IN = path.resolve(import.meta.dirname, '../../fixtures/external-signer/stand-in.mjs');
const OBJ = 'DE02120300000000202051';
const SUB = 'ops@bank.example';

/** Whether a process runs (a zombie left to a PID 1 that does not reap counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const servers: FakeServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

interface Setup {
  core: ConsoleCore;
  key: KeyInfo;
  service: FakeServer;
  mode(m: string): void;
  modeFile: string;
  /** The program the template names: node itself, or a symlink to it. */
  program: string;
  publicPem: string;
}

/** A core with a stand-in external key (added while it works), active in a real environment. */
async function setup(
  options: { out?: boolean; alg?: 'RS256' | 'PS256'; program?: string } = {},
): Promise<Setup> {
  const dir = tempDir('dets-stand-in-');
  const pair = rsaKeyPair({ modulusLength: 2048 });
  const keyFile = path.join(dir, 'key.pem');
  writeFileSync(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const modeFile = path.join(dir, 'mode');
  const mode = (m: string) => writeFileSync(modeFile, m);
  mode('good');
  const publicPem = String(pair.publicKey.export({ type: 'spki', format: 'pem' }));
  const { core } = await tempCore();
  const program = options.program ? path.join(dir, options.program) : process.execPath;
  if (options.program) symlinkSync(process.execPath, program);
  const command = `${program} ${STAND_IN} --key ${keyFile} --mode ${modeFile} --alg {alg} --in {in}${
    options.out === false ? '' : ' --out {out}'
  }`;
  const key = await valueOf<KeyInfo>(core, 'keys.addExternal', {
    kid: 'hsm-standin',
    public_key: publicPem,
    sign_command: command,
    ...(options.alg ? { alg: options.alg } : {}),
  });
  const service = await startFakeServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"session_token":"x"}');
  });
  servers.push(service);
  const env = await valueOf<{ id: string }>(core, 'env.save', {
    name: 'Production',
    base_url: service.url,
    counterparty_guid: '7d1c5c3e-6a55-4f43-9d0c-2f0a3a1f6c11',
    active_kid: key.kid,
    default_obj: OBJ,
    default_sub: SUB,
  });
  await valueOf(core, 'env.activate', { id: env.id });
  return { core, key, service, mode, modeFile, publicPem, program };
}

/** Every signing path the service sees: authenticate, PUT jwk, POST jwk, and the composer. */
async function everyPathRefused(s: Setup, message: RegExp, reason: string): Promise<void> {
  const calls: Array<[string, unknown]> = [
    ['jwt.sign', { kid: s.key.kid, obj: OBJ, sub: SUB }],
    ['service.authenticate', { kid: s.key.kid, obj: OBJ, sub: SUB }],
    ['service.updateJwk', { kid: s.key.kid }],
    ['service.registerJwk', { kid: s.key.kid }],
  ];
  for (const [method, input] of calls) {
    const answer = await s.core.dispatch(method, input);
    expect(answer.ok, method).toBe(false);
    if (answer.ok) continue;
    expect(answer.error.code, method).toBe('SIGNER_FAILED');
    expect(answer.error.message, method).toMatch(
      /key "hsm-standin" \(held elsewhere\) did not sign: its command \S*node/,
    );
    expect(answer.error.message, method).toMatch(message);
    expect(answer.error.details).toMatchObject({ kid: 'hsm-standin', reason });
  }
  const rotation = await s.core.dispatch('service.rotate', {});
  // The rotation's first signature is the PUT's, by the current (external) key: it stops there.
  expect(rotation.ok && JSON.stringify(rotation.value)).toMatch(/did not sign/);
  expect(s.service.received).toEqual([]);
}

describe('a key held elsewhere whose command fails: one message per failure, nothing sent', () => {
  it('signs while the command works, with the signature written to {out}, printed raw, base64 or as Vault prints it', async () => {
    const s = await setup();
    const check = async () => {
      const signed = await valueOf<{ token: string }>(s.core, 'jwt.sign', {
        kid: s.key.kid,
        obj: OBJ,
        sub: SUB,
      });
      const [h, p, sig] = signed.token.split('.') as [string, string, string];
      expect(
        createVerify('sha256').update(`${h}.${p}`).verify(s.publicPem, Buffer.from(sig, 'base64url')),
      ).toBe(true);
    };
    await check();
    const printed = await setup({ out: false });
    for (const m of ['good', 'base64', 'vault']) {
      printed.mode(m);
      const signed = await valueOf<{ token: string }>(printed.core, 'jwt.sign', {
        kid: 'hsm-standin',
        obj: OBJ,
        sub: SUB,
      });
      const [h, p, sig] = signed.token.split('.') as [string, string, string];
      expect(
        createVerify('sha256').update(`${h}.${p}`).verify(printed.publicPem, Buffer.from(sig, 'base64url')),
        m,
      ).toBe(true);
    }
  });

  it('a command that is not found, when added or later (uninstalled, moved)', async () => {
    const s = await setup({ program: 'signer-node' });
    const added = await s.core.dispatch('keys.addExternal', {
      kid: 'gone',
      public_key: s.publicPem,
      sign_command: 'no-such-signing-tool-29 --in {in} --out {out}',
    });
    expect(added.ok).toBe(false);
    if (!added.ok) {
      expect(added.error.code).toBe('SIGNER_FAILED');
      expect(added.error.message).toMatch(
        /key "gone" \(held elsewhere\) did not sign: its command no-such-signing-tool-29 was not found \(no such program on PATH\)/,
      );
    }
    expect((await valueOf<KeyInfo[]>(s.core, 'keys.list')).map((k) => k.kid)).toEqual(['hsm-standin']);
    unlinkSync(s.program);
    await everyPathRefused(
      s,
      /was not found \(no such program\): install it, or give its full path/,
      'not_found',
    );
  });

  it('a non-zero exit: its status and its stderr', async () => {
    const s = await setup();
    s.mode('exit');
    await everyPathRefused(
      s,
      /exited with status 3; it said on stderr: "error: PKCS11 function C_Login failed: rv = CKR_PIN_INCORRECT/,
      'exit',
    );
  });

  it('an empty signature', async () => {
    const s = await setup();
    s.mode('empty');
    await everyPathRefused(s, /exited 0 but wrote to \{out\} no signature/, 'empty');
  });

  it('a signature of the wrong length, binary or text', async () => {
    const s = await setup();
    s.mode('short');
    await everyPathRefused(
      s,
      /wrote to \{out\} 100 bytes .*exactly 256 bytes \(RS256\), raw or as base64 text/,
      'length',
    );
    const printed = await setup({ out: false });
    printed.mode('text');
    await everyPathRefused(
      printed,
      /printed 54 bytes \(starting "Error: the key \\"bank-2026\\" was not found/,
      'length',
    );
    printed.mode('flood');
    await everyPathRefused(printed, /printed 65536 bytes/, 'length');
  });

  it('a signature that does not verify against the public key', async () => {
    const s = await setup();
    s.mode('other');
    await everyPathRefused(
      s,
      /a 256-byte signature that does not verify against the key's public part/,
      'verify',
    );
  });

  it('a command that hangs: stopped at the 10 s deadline with everything it started', async () => {
    const s = await setup();
    s.mode('hang');
    const answer = await s.core.dispatch('jwt.sign', { kid: s.key.kid, obj: OBJ, sub: SUB });
    expect(answer.ok).toBe(false);
    if (!answer.ok) {
      expect(answer.error.message).toMatch(/did not finish within its deadline \(10 s\) and was stopped/);
      expect(answer.error.details).toMatchObject({ reason: 'timeout' });
    }
    // The grandchild it started is gone too: the whole process group was killed.
    const grandchild = Number(readFileSync(`${s.modeFile}.pid`, 'utf8'));
    await expect.poll(() => alive(grandchild), { timeout: 5000 }).toBe(false);
    expect(s.service.received).toEqual([]);
  }, 30_000);
});
