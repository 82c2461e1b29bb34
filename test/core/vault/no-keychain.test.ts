/**
 * Where no Secret Service answers, the vault says so (KEYCHAIN_UNAVAILABLE with a message a
 * person can act on), comes back by itself, and writes nothing. Each case runs the real vault in
 * a child process with its own environment (the keychain library reads the process's real
 * environment) and a hard kill after 20 s: a child that had to be killed is a hang, a failure.
 * No assertion is made on milliseconds.
 */
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOsKeychain } from '../../../electron/core/vault';
import { unavailable } from '../../../electron/core/vault/keychain';
import { cleanup, onCleanup, tempDir, trySealerInChild } from './helpers';

afterEach(cleanup);

const NO_BUS_ADVICE =
  /install and unlock gnome-keyring or KWallet, or create a passphrase vault \/ set DETS_VAULT_PASSPHRASE/;

async function expectNothingWritten(dataDir: string): Promise<void> {
  expect(await fs.readdir(dataDir)).toEqual([]);
}

describe.skipIf(process.platform !== 'linux')('no Secret Service reachable (child processes)', () => {
  it('a bus address that points nowhere: KEYCHAIN_UNAVAILABLE naming the address, status unavailable', async () => {
    const dataDir = await tempDir();
    const run = await trySealerInChild({
      dataDir,
      env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' },
    });
    expect(run.killed).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(run.result).toMatchObject({
      ok: false,
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringMatching(
        /^No Secret Service on the session bus \(DBUS_SESSION_BUS_ADDRESS=unix:path=\/nonexistent\)/,
      ),
    });
    expect(run.result?.message).toMatch(NO_BUS_ADVICE);
    expect(run.result?.status).toEqual({
      state: 'unavailable',
      kind: null,
      detail: run.result?.message,
      code: 'KEYCHAIN_UNAVAILABLE',
    });
    await expectNothingWritten(dataDir);
  });

  it('no DBUS_SESSION_BUS_ADDRESS at all: KEYCHAIN_UNAVAILABLE saying it is not set', async () => {
    const dataDir = await tempDir();
    const runtime = await tempDir('dets-vault-runtime-'); // no user bus socket in it
    const run = await trySealerInChild({
      dataDir,
      env: { DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: runtime, DISPLAY: undefined },
    });
    expect(run.killed).toBe(false);
    expect(run.result).toMatchObject({
      ok: false,
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringMatching(
        /^No Secret Service on the session bus \(DBUS_SESSION_BUS_ADDRESS is not set\)/,
      ),
    });
    expect(run.result?.message).toMatch(NO_BUS_ADVICE);
    await expectNothingWritten(dataDir);
  });

  it('a wedged bus (accepts, never answers): the deadline fires, the error says so, and the process exits', async () => {
    const dataDir = await tempDir();
    const sockDir = await tempDir('dets-bus-');
    const socketPath = path.join(sockDir, 'bus');
    const held: net.Socket[] = [];
    const server = net.createServer((socket) => held.push(socket)); // accept, say nothing
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    onCleanup(async () => {
      for (const s of held) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    const run = await trySealerInChild({
      dataDir,
      env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${socketPath}` },
      keychainTimeoutMs: 1000,
    });
    expect(run.killed).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(run.result).toMatchObject({
      ok: false,
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringMatching(
        /^The OS keychain did not answer within 1 s \(a wedged D-Bus session\?\)/,
      ),
    });
    expect(run.result?.message).toMatch(/create a passphrase vault \/ set DETS_VAULT_PASSPHRASE/);
    expect(run.result?.status).toMatchObject({ state: 'unavailable', code: 'KEYCHAIN_UNAVAILABLE' });
    expect(held.length).toBeGreaterThan(0); // the probe did reach the wedged socket
    await expectNothingWritten(dataDir);
  });
});

describe('the keychain worker', () => {
  /** A stand-in for @napi-rs/keyring, written as CommonJS for the worker to require. */
  async function fakeKeyring(source: string): Promise<string> {
    const file = path.join(await tempDir('dets-fake-keyring-'), 'fake-keyring.cjs');
    await fs.writeFile(file, source);
    return file;
  }

  it('a call that never returns: terminated at the deadline with KEYCHAIN_UNAVAILABLE, and the worker ends', async () => {
    const spinning = await fakeKeyring('exports.Entry = class { constructor() { for (;;) {} } };');
    const kc = createOsKeychain({ modulePath: spinning, timeoutMs: 500, platform: 'linux', env: {} });
    await expect(kc.get('DETS Console', 'vault-key:x')).rejects.toMatchObject({
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringMatching(
        /^The OS keychain did not answer within 0\.5 s \(a wedged D-Bus session\?\)/,
      ),
    });

    // Once the stuck worker has been terminated, the next call is served again.
    const answering = await fakeKeyring(
      'exports.Entry = class { getPassword() { return "stored"; } setPassword() {} deletePassword() { return true; } };',
    );
    const next = createOsKeychain({ modulePath: answering, timeoutMs: 5000, platform: 'linux', env: {} });
    let value: string | null | undefined;
    for (let i = 0; i < 100 && value === undefined; i++) {
      value = await next.get('DETS Console', 'vault-key:x').catch(async (err: { message: string }) => {
        expect(err.message).toMatch(/An earlier keychain call is still waiting/);
        await new Promise((r) => setTimeout(r, 50));
        return undefined;
      });
    }
    expect(value).toBe('stored');
  });

  it('pins the Secret Service store on Linux only, and scrubs the secret from library errors', async () => {
    const seen = await fakeKeyring(`
      exports.Entry = class {
        constructor(service, account, options) { this.options = options; }
        getPassword() { return JSON.stringify(this.options ?? null); }
        setPassword(secret) { throw new Error('Platform failure: could not store ' + secret + ' anywhere'); }
        deletePassword() { return false; }
      };`);
    const linux = createOsKeychain({ modulePath: seen, platform: 'linux', env: {} });
    expect(JSON.parse((await linux.get('s', 'a'))!)).toEqual({ linux: { store: 'secret-service' } });
    expect(await linux.delete('s', 'a')).toBe(false);
    const mac = createOsKeychain({ modulePath: seen, platform: 'darwin', env: {} });
    expect(JSON.parse((await mac.get('s', 'a'))!)).toBeNull();

    const err = (await linux.set('s', 'a', 'TOP-SECRET-VALUE').catch((e: unknown) => e)) as Error & {
      code: string;
    };
    expect(err.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(err.message.includes('TOP-SECRET-VALUE')).toBe(false);
    expect(err.message).toMatch(/could not store \[secret\] anywhere/);
    expect(err.message).toMatch(/DBUS_SESSION_BUS_ADDRESS is not set/);
  });

  it('a library that does not load: KEYCHAIN_UNAVAILABLE, not a crash', async () => {
    const kc = createOsKeychain({ modulePath: '/nonexistent/keyring.cjs', platform: 'linux', env: {} });
    await expect(kc.get('s', 'a')).rejects.toMatchObject({
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringMatching(/Cannot find module/),
    });
  });

  it('says what to do on each platform', () => {
    expect(unavailable('darwin', {}, 'User interaction is not allowed.').message).toMatch(
      /^The macOS Keychain refused the request \(User interaction is not allowed\.\): unlock the login keychain/,
    );
    expect(unavailable('win32', {}, 'Element not found.').message).toMatch(
      /^Windows Credential Manager refused/,
    );
    expect(
      unavailable(
        'linux',
        { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1/bus' },
        'Secret Service: unlock prompt was dismissed',
      ).message,
    ).toMatch(/locked and its unlock prompt was dismissed/);
    for (const platform of ['darwin', 'win32', 'linux', 'freebsd'] as const) {
      expect(unavailable(platform, {}, 'x').message).toMatch(
        /create a passphrase vault \/ set DETS_VAULT_PASSPHRASE/,
      );
    }
  });
});
