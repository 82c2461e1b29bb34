/**
 * `<dataDir>/vault/vault.json`: which vault a profile has, never its key. It holds the profile
 * id (the keychain account is `vault-key:<profile_id>`), the scrypt salt and parameters of a
 * passphrase vault, and a verifier (a known value sealed with the vault key) that tells a wrong
 * key or passphrase from a right one before anything is opened or written.
 *
 * It is written once, when the vault is made: exclusively (two processes sharing a profile
 * cannot both create one, the loser adopts the winner's), atomically (a temporary file linked
 * into place), 0600 in a 0700 folder. It is never rewritten, and a file that does not parse is
 * left as it is for a person to look at (VAULT_DAMAGED names it).
 */
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import { createFileExclusive, issuePath, readJsonFileOrNull } from '../common';

export const VAULT_FILE_VERSION = 1;

/** scrypt parameters a vault file may ask for: bounded, so a tampered file cannot exhaust memory. */
const ScryptParams = z.object({
  name: z.literal('scrypt'),
  salt: z.string().regex(/^[A-Za-z0-9_-]{22,}$/, 'salt must be base64url, at least 16 bytes'),
  N: z
    .number()
    .int()
    .min(2 ** 14)
    .max(2 ** 20)
    .refine((n) => (n & (n - 1)) === 0, 'N must be a power of two'),
  r: z.number().int().min(1).max(32),
  p: z.number().int().min(1).max(16),
});
export type ScryptParams = z.infer<typeof ScryptParams>;

const Common = {
  version: z.literal(VAULT_FILE_VERSION),
  profile_id: z.uuid(),
  created_at: z.string().min(1),
  verifier: z.string().min(1),
};

export const VaultFile = z.discriminatedUnion('kind', [
  z.object({ ...Common, kind: z.literal('keychain') }),
  z.object({ ...Common, kind: z.literal('passphrase'), kdf: ScryptParams }),
]);
export type VaultFile = z.infer<typeof VaultFile>;

export function vaultDir(dataDir: string): string {
  return join(dataDir, 'vault');
}

export function vaultFilePath(dataDir: string): string {
  return join(vaultDir(dataDir), 'vault.json');
}

/** undefined when there is no vault yet; VAULT_DAMAGED (naming the file) when it cannot be used. */
export async function readVaultFile(dataDir: string): Promise<VaultFile | undefined> {
  const path = vaultFilePath(dataDir);
  const read = await readJsonFileOrNull(path, {
    unreadable: (err) =>
      new ConsoleError(
        'VAULT_DAMAGED',
        `The vault file ${path} cannot be read (${err.code ?? err.message}): fix its permissions; nothing was changed.`,
      ),
    notJson: () => damaged(path, 'it is not JSON'),
  });
  if (read === null) return undefined;
  const parsed = VaultFile.safeParse(read.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw damaged(
      path,
      `${(issue && issuePath(issue)) || 'the file'}: ${issue?.message ?? 'unexpected shape'}`,
    );
  }
  return parsed.data;
}

function damaged(path: string, why: string): ConsoleError {
  return new ConsoleError(
    'VAULT_DAMAGED',
    `The vault file ${path} is damaged (${why}). It was left untouched: restore it from a backup; the sealed keys of this profile cannot be opened without it.`,
  );
}

/**
 * Writes vault.json unless one exists. Returns false when another writer got there first
 * (nothing of ours is left behind); the caller then reads and adopts theirs.
 */
export async function createVaultFile(dataDir: string, file: VaultFile): Promise<boolean> {
  const dir = vaultDir(dataDir);
  const path = vaultFilePath(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') await chmod(dir, 0o700);
  return createFileExclusive(path, `${JSON.stringify(file, null, 2)}\n`);
}
