/**
 * The vault key's material (vault.ts's threat model): 256 random bits in the keychain, or
 * derived from a passphrase with scrypt; the verifier that tells the right key from a wrong
 * one; the sealer over an opened key. Clear key bytes are zeroed as soon as a KeyObject holds
 * them, and no key byte reaches an error.
 */
import { createSecretKey, scrypt as scryptCb, timingSafeEqual, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { badArgument } from '../../contract/errors';
import { openSealed, sealBytes } from './aead';
import type { SecretSealer } from './sealer';
import type { ScryptParams, VaultFile } from './vault-file';

const scrypt = promisify(scryptCb) as (
  password: Buffer,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** A vault key is 256 bits. */
export const KEY_BYTES = 32;
export const SALT_BYTES = 16;
export const MIN_PASSPHRASE_LENGTH = 12;
/** scrypt cost for new passphrase vaults: N=2^15, r=8, p=1 (32 MiB, about 0.1 s). */
export const NEW_SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
const VERIFIER_TEXT = 'DETS Console vault verifier v1';
/** CI's explicit choice of a passphrase vault, and its passphrase. */
export const ENV_PASSPHRASE = 'DETS_VAULT_PASSPHRASE';

const verifierAad = (profileId: string): string => `vault-verifier:${profileId}`;

/** A new vault's verifier: a known text sealed under its key, bound to the profile. */
export function sealVerifier(key: KeyObject, profileId: string): string {
  return sealBytes(key, Buffer.from(VERIFIER_TEXT, 'utf8'), verifierAad(profileId));
}

/** A sealer over the opened vault key: AES-256-GCM with the caller's AAD (aead.ts). */
export function makeSealer(kind: 'keychain' | 'passphrase', key: KeyObject): SecretSealer {
  return {
    kind,
    seal: async (plaintext, aad) => sealBytes(key, plaintext, aad),
    open: async (sealed, aad) => openSealed(key, sealed, aad),
  };
}

/** Whether `key` opens the file's verifier: the right key for this vault. */
export function verifies(key: KeyObject, file: VaultFile): boolean {
  try {
    const text = openSealed(key, file.verifier, verifierAad(file.profile_id));
    return Buffer.from(text).toString('utf8') === VERIFIER_TEXT;
  } catch {
    return false;
  }
}

/** A vault key as the keychain stores it (43 base64url characters), or undefined when it is not one. */
export function decodeKey(stored: string): KeyObject | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(stored)) return undefined;
  const raw = Buffer.from(stored, 'base64url');
  if (raw.length !== KEY_BYTES) return undefined;
  const key = createSecretKey(raw);
  raw.fill(0);
  return key;
}

/** The vault key from a passphrase (NFC) with the file's scrypt parameters; clear bytes zeroed. */
export async function derive(passphrase: string, kdf: ScryptParams): Promise<KeyObject> {
  const salt = Buffer.from(kdf.salt, 'base64url');
  const secret = Buffer.from(passphrase.normalize('NFC'), 'utf8');
  try {
    const raw = await scrypt(secret, salt, KEY_BYTES, {
      N: kdf.N,
      r: kdf.r,
      p: kdf.p,
      maxmem: 256 * kdf.N * kdf.r + 16 * 1024 * 1024,
    });
    const key = createSecretKey(raw);
    raw.fill(0);
    return key;
  } finally {
    secret.fill(0);
  }
}

/** BAD_ARGUMENT when a new vault's passphrase is shorter than MIN_PASSPHRASE_LENGTH characters. */
export function checkNewPassphrase(passphrase: string, source: string): void {
  if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) {
    throw badArgument(
      `${source === ENV_PASSPHRASE ? ENV_PASSPHRASE : 'The passphrase'} must be at least ${MIN_PASSPHRASE_LENGTH} characters to create a vault (it is all that protects the sealed keys).`,
      source === ENV_PASSPHRASE ? ENV_PASSPHRASE : 'passphrase',
    );
  }
}

/** Equal strings, compared in constant time (a key read back from the keychain). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
