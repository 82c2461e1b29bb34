/**
 * The vault's states with an in-memory keychain: creation happens once and only where no vault
 * exists, the key is read once per process, a missing keychain is reported and never replaced by
 * anything silent, a damaged vault.json is named and left alone, and vault.changed follows it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { VaultStatus } from '../../../electron/contract/schemas/keys';
import { KEYCHAIN_SERVICE, openVault, vaultFilePath, vaultKeyAccount } from '../../../electron/core/vault';
import { unavailable } from '../../../electron/core/vault/keychain';
import { cleanup, memoryKeychain, tempDir, unavailableError } from './helpers';

afterEach(cleanup);

describe('vault states', () => {
  it('makes one keychain vault for concurrent first uses, and reads its key once per process', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    const vault = openVault({ dataDir, env: {}, keychain: kc });
    const [a, b] = await Promise.all([vault.sealer(), vault.sealer()]);
    expect(a).toBe(b);
    expect(kc.items.size).toBe(1);
    expect(kc.calls.map((c) => c.op)).toEqual(['set', 'get']); // stored, then read back once

    const other = openVault({ dataDir, env: {}, keychain: kc });
    await other.status();
    await other.sealer();
    await other.sealer();
    expect(kc.calls.filter((c) => c.op === 'get')).toHaveLength(2);
    const sealed = await a.seal(Buffer.from('x'), 'aad');
    expect(Buffer.from(await (await other.sealer()).open(sealed, 'aad')).toString()).toBe('x');
  });

  it('two processes creating at once: one vault, the loser adopts it and drops its own key', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    const [a, b] = await Promise.all([
      openVault({ dataDir, env: {}, keychain: kc }).sealer(),
      openVault({ dataDir, env: {}, keychain: kc }).sealer(),
    ]);
    expect(kc.items.size).toBe(1);
    const { profile_id } = JSON.parse(await fs.readFile(vaultFilePath(dataDir), 'utf8')) as {
      profile_id: string;
    };
    expect([...kc.items.keys()]).toEqual([`${KEYCHAIN_SERVICE}\n${vaultKeyAccount(profile_id)}`]);
    expect(Buffer.from(await b.open(await a.seal(Buffer.from('y'), 'z'), 'z')).toString()).toBe('y');
  });

  it('no keychain: KEYCHAIN_UNAVAILABLE, status unavailable with the detail, and nothing written', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    kc.failWith = unavailableError();
    const changes: VaultStatus[] = [];
    const vault = openVault({ dataDir, env: {}, keychain: kc, events: { emit: (_e, s) => changes.push(s) } });
    await expect(vault.sealer()).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    expect(await vault.status()).toEqual({
      state: 'unavailable',
      kind: null,
      detail: kc.failWith.message,
      code: 'KEYCHAIN_UNAVAILABLE',
    });
    expect(changes.map((s) => s.state)).toEqual(['unavailable']);
    await expect(fs.readdir(dataDir)).resolves.toEqual([]);

    // The keychain comes back (gnome-keyring installed and unlocked): the next use creates the vault.
    kc.failWith = undefined;
    await vault.sealer();
    expect(await vault.status()).toMatchObject({ state: 'unlocked', kind: 'keychain' });
    expect(changes.map((s) => s.state)).toEqual(['unavailable', 'unlocked']);

    // And an explicit passphrase vault was possible all along.
    const other = await tempDir();
    const failing = memoryKeychain();
    failing.failWith = unavailableError();
    const pv = openVault({ dataDir: other, env: {}, keychain: failing });
    await expect(pv.sealer()).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    expect(await pv.createPassphraseVault('a long enough passphrase')).toMatchObject({
      state: 'unlocked',
      kind: 'passphrase',
    });
  });

  it('an existing keychain vault whose keychain is gone: unavailable, with no passphrase-vault advice', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    await openVault({ dataDir, env: {}, keychain: kc }).sealer();
    kc.failWith = unavailable('linux', {}, 'Platform failure: DBus error');
    const vault = openVault({ dataDir, env: {}, keychain: kc });
    const err = (await vault.sealer().catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(err.message).toMatch(
      /^No Secret Service on the session bus \(DBUS_SESSION_BUS_ADDRESS is not set\): install and unlock gnome-keyring or KWallet\. This profile's vault key is kept there/,
    );
    expect(err.message).not.toMatch(/passphrase/);
    expect(await vault.status()).toMatchObject({
      state: 'unavailable',
      kind: 'keychain',
      code: 'KEYCHAIN_UNAVAILABLE',
    });
  });

  it('a keychain that fails after the key was stored leaves no key behind', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    const get = kc.get.bind(kc);
    kc.get = async () => null; // accepted the key, cannot return it
    await expect(openVault({ dataDir, env: {}, keychain: kc }).sealer()).rejects.toMatchObject({
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringMatching(/accepted the vault key but did not return it/),
    });
    expect(kc.items.size).toBe(0);
    await expect(fs.access(vaultFilePath(dataDir))).rejects.toThrow();
    kc.get = get;
  });

  it.each([
    ['not JSON', '{"version": 1, "kind": "keych'],
    ['a wrong shape', JSON.stringify({ version: 1, kind: 'keychain', profile_id: 'not-a-uuid' })],
    ['an unknown kind', JSON.stringify({ version: 1, kind: 'plaintext', profile_id: crypto.randomUUID() })],
    [
      'an unknown version',
      JSON.stringify({
        version: 9,
        kind: 'keychain',
        profile_id: crypto.randomUUID(),
        created_at: 'x',
        verifier: 'v',
      }),
    ],
  ])('a damaged vault.json (%s): VAULT_DAMAGED naming the file, left untouched', async (_why, text) => {
    const dataDir = await tempDir();
    await fs.mkdir(path.join(dataDir, 'vault'));
    await fs.writeFile(vaultFilePath(dataDir), text);
    const kc = memoryKeychain();
    const vault = openVault({
      dataDir,
      env: { DETS_VAULT_PASSPHRASE: 'a long enough passphrase' },
      keychain: kc,
    });
    const expected = { code: 'VAULT_DAMAGED', message: expect.stringContaining(vaultFilePath(dataDir)) };
    await expect(vault.sealer()).rejects.toMatchObject(expected);
    await expect(vault.unlock('a long enough passphrase')).rejects.toMatchObject(expected);
    await expect(vault.createPassphraseVault('a long enough passphrase')).rejects.toMatchObject(expected);
    expect(await vault.status()).toMatchObject({ state: 'unavailable', kind: null, code: 'VAULT_DAMAGED' });
    expect(await fs.readFile(vaultFilePath(dataDir), 'utf8')).toBe(text);
    expect(await fs.readdir(path.join(dataDir, 'vault'))).toEqual(['vault.json']);
    expect(kc.calls).toEqual([]);
  });

  it('a keychain item that holds another key: VAULT_KEY_MISSING, nothing overwritten', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    await openVault({ dataDir, env: {}, keychain: kc }).sealer();
    const [id] = [...kc.items.keys()];
    kc.items.set(id!, Buffer.alloc(32, 7).toString('base64url'));
    const before = await fs.readFile(vaultFilePath(dataDir));
    await expect(openVault({ dataDir, env: {}, keychain: kc }).sealer()).rejects.toMatchObject({
      code: 'VAULT_KEY_MISSING',
      message: expect.stringMatching(/does not hold the key that opens/),
    });
    kc.items.set(id!, 'not a key');
    await expect(openVault({ dataDir, env: {}, keychain: kc }).sealer()).rejects.toMatchObject({
      code: 'VAULT_KEY_MISSING',
    });
    expect((await fs.readFile(vaultFilePath(dataDir))).equals(before)).toBe(true);
    expect(kc.calls.filter((c) => c.op === 'set')).toHaveLength(1);
  });

  it('a keychain vault ignores DETS_VAULT_PASSPHRASE and has no passphrase to unlock', async () => {
    const dataDir = await tempDir();
    const kc = memoryKeychain();
    await openVault({ dataDir, env: {}, keychain: kc }).sealer();
    const vault = openVault({
      dataDir,
      env: { DETS_VAULT_PASSPHRASE: 'a long enough passphrase' },
      keychain: kc,
    });
    expect((await vault.sealer()).kind).toBe('keychain');
    await expect(vault.unlock('a long enough passphrase')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(vault.createPassphraseVault('a long enough passphrase')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('sealed values are opaque, versioned and fresh each time; malformed ones are VAULT_DAMAGED', async () => {
    const sealer = await openVault({
      dataDir: await tempDir(),
      env: {},
      keychain: memoryKeychain(),
    }).sealer();
    const a = await sealer.seal(Buffer.from('same'), 'aad');
    const b = await sealer.seal(Buffer.from('same'), 'aad');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    for (const bad of ['', 'v1.x', 'v2.aaaa.bbbb.cccc', 'v1.!!.bb.cc', `${a}.extra`, 'v1.AAAA.AAAA.AAAA']) {
      await expect(sealer.open(bad, 'aad')).rejects.toMatchObject({ code: 'VAULT_DAMAGED' });
    }
    expect(Buffer.from(await sealer.open(a, 'aad')).toString()).toBe('same');
    const empty = await sealer.seal(new Uint8Array(0), '');
    expect(await sealer.open(empty, '')).toHaveLength(0);
  });
});
