/**
 * Test doubles for the key store's neighbours: a real AES-256-GCM sealer (a real cipher; only
 * the keychain that would hold its key is absent), a vault that hands it out, a clock, and a
 * scan of a data directory for private key material.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecretSealer } from '../../../electron/core/vault/sealer';
import type { Vault } from '../../../electron/core/vault';
import { ConsoleError } from '../../../electron/contract/errors';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';

export function testSealer(key: Buffer = randomBytes(32)): SecretSealer {
  return {
    kind: 'keychain',
    async seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad));
      const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return `t1.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')}`;
    },
    async open(sealed, aad) {
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(raw.subarray(12, 28));
      return new Uint8Array(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]));
    },
  };
}

/** A vault that is unlocked with `sealer`, or locked when given none. */
export function testVault(sealer?: SecretSealer): Pick<Vault, 'sealer'> {
  return {
    sealer: async () => {
      if (!sealer)
        throw new ConsoleError('VAULT_LOCKED', 'the vault is locked: unlock it with its passphrase');
      return sealer;
    },
  };
}

export function tempDir(prefix = 'dets-keys-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Every regular file under `dir`, recursively. */
export function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

/**
 * What in `dir` looks like private key material: a PEM private key block, a JSON member named
 * like a private JWK member, or any of `secrets` (e.g. base64 of a private key's DER, or its
 * "d") as text. Returns "file: what" lines; [] when clean.
 */
export function privateMaterialIn(dir: string, secrets: string[]): string[] {
  const found: string[] = [];
  for (const file of allFiles(dir)) {
    const text = readFileSync(file).toString('latin1');
    if (/PRIVATE KEY/.test(text)) found.push(`${file}: a PEM private key block`);
    for (const m of PRIVATE_JWK_MEMBERS) {
      if (new RegExp(`"${m}"\\s*:`).test(text)) found.push(`${file}: JSON member "${m}"`);
    }
    for (const [i, s] of secrets.entries()) if (text.includes(s)) found.push(`${file}: secret #${i}`);
  }
  return found;
}

/** A key as keys.list shows it, for rules that read only its kid and status. */
export function keyInfoOf(kid: string, status: KeyInfo['status']): KeyInfo {
  return {
    ...{ kid, alg: 'RS256', bits: 2048, label: '', counterparty_guid: null, status },
    ...{ created_at: '2026-01-01T00:00:00.000Z', expires: null, expires_in_days: null, fingerprint: kid },
    public_jwk: { alg: 'RS256', e: 'AQAB', kid, kty: 'RSA', n: `n-${kid}`, use: 'sig' },
    holder: 'vault',
    sign_command: null,
  };
}
