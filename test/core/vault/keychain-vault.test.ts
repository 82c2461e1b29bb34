/**
 * The keychain vault against the real Secret Service (npm test runs vitest inside
 * scripts/with-keyring.sh: a private D-Bus session with an unlocked gnome-keyring). Every
 * vault key made here is deleted again; no test prints a secret (assertions compare booleans
 * and file names).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createOsKeychain,
  KEYCHAIN_SERVICE,
  openVault,
  vaultFilePath,
  vaultKeyAccount,
} from '../../../electron/core/vault';
import { cleanup, filesHolding, onCleanup, secretToolAttributes, tempDir } from './helpers';

const keychain = createOsKeychain();

async function profileAccount(dataDir: string): Promise<string> {
  const file = JSON.parse(await fs.readFile(vaultFilePath(dataDir), 'utf8')) as { profile_id: string };
  return vaultKeyAccount(file.profile_id);
}

/** Opens a fresh keychain vault on a new data folder; its keychain item is deleted afterwards. */
async function newKeychainVault() {
  const dataDir = await tempDir();
  const vault = openVault({ dataDir, env: {} });
  const sealer = await vault.sealer();
  const account = await profileAccount(dataDir);
  onCleanup(() => keychain.delete(KEYCHAIN_SERVICE, account));
  return { dataDir, vault, sealer, account };
}

afterEach(cleanup);

describe('keychain vault (real Secret Service)', () => {
  it('stores one vault key per profile in the keychain, under service "DETS Console"', async () => {
    const { dataDir, vault, sealer, account } = await newKeychainVault();
    expect(sealer.kind).toBe('keychain');
    expect(await vault.status()).toMatchObject({ state: 'unlocked', kind: 'keychain' });

    // Seen independently of our code: secret-tool lists the item (its secret is never read here).
    const attributes = await secretToolAttributes(account);
    expect(attributes).toContain(`attribute.service = ${KEYCHAIN_SERVICE}`);
    expect(attributes).toContain(`attribute.username = ${account}`);

    const file = JSON.parse(await fs.readFile(vaultFilePath(dataDir), 'utf8')) as Record<string, unknown>;
    expect(file).toMatchObject({ version: 1, kind: 'keychain', profile_id: expect.any(String) });
    expect(Object.keys(file).sort()).toEqual(['created_at', 'kind', 'profile_id', 'verifier', 'version']);
    if (process.platform !== 'win32') {
      expect((await fs.stat(vaultFilePath(dataDir))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.dirname(vaultFilePath(dataDir)))).mode & 0o777).toBe(0o700);
    }
  });

  it('a second openVault on the same data folder reads the key back: sealed in one, opened in the other', async () => {
    const { dataDir, sealer } = await newKeychainVault();
    const secret = randomBytes(48);
    const sealed = await sealer.seal(secret, 'test-key:one');

    const again = openVault({ dataDir, env: {} });
    expect(await again.status()).toMatchObject({ state: 'unlocked', kind: 'keychain' });
    const opened = await (await again.sealer()).open(sealed, 'test-key:one');
    expect(Buffer.from(opened).equals(secret)).toBe(true);
  });

  it('refuses a sealed value under another aad, or altered, with VAULT_DAMAGED', async () => {
    const { sealer } = await newKeychainVault();
    const sealed = await sealer.seal(Buffer.from('a private key'), 'sandbox-key:k1');
    expect(Buffer.from(await sealer.open(sealed, 'sandbox-key:k1')).toString()).toBe('a private key');
    await expect(sealer.open(sealed, 'sandbox-key:k2')).rejects.toMatchObject({
      code: 'VAULT_DAMAGED',
      message: expect.stringMatching(/does not open with this vault's key for "sandbox-key:k2"/),
    });
    const [v, iv, ct, tag] = sealed.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    await expect(
      sealer.open([v, iv, flipped.toString('base64url'), tag].join('.'), 'sandbox-key:k1'),
    ).rejects.toMatchObject({
      code: 'VAULT_DAMAGED',
    });
  });

  it('a vault key deleted from the keychain: VAULT_KEY_MISSING, nothing overwritten, no new key', async () => {
    const { dataDir, sealer, account } = await newKeychainVault();
    const sealed = await sealer.seal(Buffer.from('kept'), 'test-key:missing');
    const sealedFile = path.join(dataDir, 'sealed.txt');
    await fs.writeFile(sealedFile, sealed);
    const before = await fs.readFile(vaultFilePath(dataDir));

    expect(await keychain.delete(KEYCHAIN_SERVICE, account)).toBe(true);
    expect(await secretToolAttributes(account)).toEqual([]);

    const again = openVault({ dataDir, env: {} });
    await expect(again.sealer()).rejects.toMatchObject({
      code: 'VAULT_KEY_MISSING',
      message: expect.stringMatching(/cannot be opened without it; nothing was overwritten/),
    });
    expect(await again.status()).toMatchObject({
      state: 'unavailable',
      kind: 'keychain',
      code: 'VAULT_KEY_MISSING',
    });
    expect((await fs.readFile(vaultFilePath(dataDir))).equals(before)).toBe(true);
    expect(await fs.readFile(sealedFile, 'utf8')).toBe(sealed);
    expect(await keychain.get(KEYCHAIN_SERVICE, account)).toBeNull(); // no key made over the old data
  });

  it('the data folder holds neither the sealed plaintext nor the vault key, in any encoding', async () => {
    const { dataDir, sealer, account } = await newKeychainVault();
    const secret = Buffer.concat([Buffer.from('-----BEGIN PRIVATE KEY-----'), randomBytes(64)]);
    await fs.mkdir(path.join(dataDir, 'keys'));
    await fs.writeFile(
      path.join(dataDir, 'keys', 'k1.json'),
      JSON.stringify({ sealed: await sealer.seal(secret, 'key:k1') }),
    );

    const stored = await keychain.get(KEYCHAIN_SERVICE, account);
    expect(stored).not.toBeNull();
    const vaultKey = Buffer.from(stored!, 'base64url');
    expect(vaultKey.length).toBe(32);

    expect(await filesHolding(dataDir, secret)).toEqual([]);
    expect(await filesHolding(dataDir, secret.subarray(27))).toEqual([]);
    expect(await filesHolding(dataDir, vaultKey)).toEqual([]);
    // The scan itself works: a planted copy is found.
    await fs.writeFile(path.join(dataDir, 'planted'), secret.subarray(27).toString('hex'));
    expect(await filesHolding(dataDir, secret.subarray(27))).toEqual([path.join(dataDir, 'planted')]);
  });
});
