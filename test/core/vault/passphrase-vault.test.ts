/**
 * The passphrase vault (scrypt): made only on request (createPassphraseVault, or
 * DETS_VAULT_PASSPHRASE where no vault exists), locked until its passphrase opens the
 * verifier, and never touched by a wrong passphrase. No keychain is involved: the keychain
 * given here fails the test if it is ever called.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { VaultStatus } from '../../../electron/contract/schemas/keys';
import { openVault, vaultFilePath } from '../../../electron/core/vault';
import { cleanup, filesHolding, noKeychain, tempDir } from './helpers';

const PASS = 'correct horse battery staple';

afterEach(cleanup);

describe('passphrase vault', () => {
  it('is created on request, seals, and a new process opens it with the right passphrase', async () => {
    const dataDir = await tempDir();
    const changes: VaultStatus[] = [];
    const vault = openVault({
      dataDir,
      env: {},
      keychain: noKeychain,
      events: { emit: (_e, s) => changes.push(s) },
    });
    expect(await vault.status()).toMatchObject({ state: 'uninitialized', kind: null });

    expect(await vault.createPassphraseVault(PASS)).toMatchObject({ state: 'unlocked', kind: 'passphrase' });
    const sealer = await vault.sealer();
    expect(sealer.kind).toBe('passphrase');
    const secret = randomBytes(40);
    const sealed = await sealer.seal(secret, 'key:p1');
    expect(changes.map((s) => s.state)).toEqual(['uninitialized', 'unlocked']);

    const file = JSON.parse(await fs.readFile(vaultFilePath(dataDir), 'utf8')) as Record<string, unknown>;
    expect(file).toMatchObject({
      version: 1,
      kind: 'passphrase',
      kdf: { name: 'scrypt', N: 2 ** 15, r: 8, p: 1 },
    });

    const later = openVault({ dataDir, env: {}, keychain: noKeychain });
    expect(await later.status()).toMatchObject({ state: 'locked', kind: 'passphrase', code: 'VAULT_LOCKED' });
    await expect(later.sealer()).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    expect(await later.unlock(PASS)).toMatchObject({ state: 'unlocked', kind: 'passphrase' });
    const opened = await (await later.sealer()).open(sealed, 'key:p1');
    expect(Buffer.from(opened).equals(secret)).toBe(true);

    expect(await filesHolding(dataDir, secret)).toEqual([]);
    expect(await filesHolding(dataDir, Buffer.from(PASS))).toEqual([]);
  });

  it('a wrong passphrase: VAULT_PASSPHRASE_WRONG, vault.json byte-identical, still locked', async () => {
    const dataDir = await tempDir();
    await openVault({ dataDir, env: {}, keychain: noKeychain }).createPassphraseVault(PASS);
    const before = await fs.readFile(vaultFilePath(dataDir));
    const beforeStat = await fs.stat(vaultFilePath(dataDir));

    const vault = openVault({ dataDir, env: {}, keychain: noKeychain });
    await expect(vault.unlock('correct horse battery stapler')).rejects.toMatchObject({
      code: 'VAULT_PASSPHRASE_WRONG',
      message: expect.stringMatching(/the passphrase does not open this vault.*nothing was written/i),
    });
    expect(await vault.status()).toMatchObject({ state: 'locked', kind: 'passphrase' });
    expect((await fs.readFile(vaultFilePath(dataDir))).equals(before)).toBe(true);
    expect((await fs.stat(vaultFilePath(dataDir))).mtimeMs).toBe(beforeStat.mtimeMs);
    expect(await fs.readdir(`${dataDir}/vault`)).toEqual(['vault.json']);
  });

  it('DETS_VAULT_PASSPHRASE creates the passphrase vault where none exists, and opens it later', async () => {
    const dataDir = await tempDir();
    const env = { DETS_VAULT_PASSPHRASE: PASS };
    const vault = openVault({ dataDir, env, keychain: noKeychain });
    expect(await vault.status()).toMatchObject({
      state: 'uninitialized',
      detail: expect.stringMatching(/DETS_VAULT_PASSPHRASE is set/),
    });
    const sealed = await (await vault.sealer()).seal(Buffer.from('ci secret'), 'key:ci');
    expect(await vault.status()).toMatchObject({ state: 'unlocked', kind: 'passphrase' });

    const next = openVault({ dataDir, env, keychain: noKeychain });
    expect(await next.status()).toMatchObject({ state: 'unlocked', kind: 'passphrase' });
    expect(Buffer.from(await (await next.sealer()).open(sealed, 'key:ci')).toString()).toBe('ci secret');

    const wrong = openVault({
      dataDir,
      env: { DETS_VAULT_PASSPHRASE: 'not the passphrase' },
      keychain: noKeychain,
    });
    await expect(wrong.sealer()).rejects.toMatchObject({
      code: 'VAULT_PASSPHRASE_WRONG',
      message: expect.stringMatching(/^DETS_VAULT_PASSPHRASE does not open this vault/),
    });
    expect(await wrong.status()).toMatchObject({ state: 'locked', code: 'VAULT_PASSPHRASE_WRONG' });
    // unlock() with the right one still works where the variable is wrong.
    expect(await wrong.unlock(PASS)).toMatchObject({ state: 'unlocked' });
  });

  it('refuses short passphrases, a second vault, and unlock where there is nothing to unlock', async () => {
    const dataDir = await tempDir();
    const vault = openVault({ dataDir, env: {}, keychain: noKeychain });
    await expect(vault.createPassphraseVault('short')).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/at least 12 characters/),
    });
    await expect(vault.unlock(PASS)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const shortEnv = openVault({ dataDir, env: { DETS_VAULT_PASSPHRASE: 'short' }, keychain: noKeychain });
    await expect(shortEnv.sealer()).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/^DETS_VAULT_PASSPHRASE must be at least 12/),
    });
    expect(await shortEnv.status()).toMatchObject({
      state: 'unavailable',
      kind: null,
      detail: expect.stringMatching(/^DETS_VAULT_PASSPHRASE must be at least 12/),
    });
    await expect(fs.access(vaultFilePath(dataDir))).rejects.toThrow();

    await vault.createPassphraseVault(PASS);
    const before = await fs.readFile(vaultFilePath(dataDir));
    await expect(
      openVault({ dataDir, env: {}, keychain: noKeychain }).createPassphraseVault('another long passphrase'),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/already has a passphrase vault/),
    });
    expect((await fs.readFile(vaultFilePath(dataDir))).equals(before)).toBe(true);
  });
});
