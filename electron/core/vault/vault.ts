/**
 * The profile's vault (DESIGN.md "Secrets"): one random 256-bit vault key per profile, secrets
 * sealed under it with AES-256-GCM and stored in the data directory.
 *
 * Threat model.
 * Protected: secrets at rest in the data directory (private keys, the sandbox's signing key)
 * against other users and processes that can read the data dir, against backups and synced or
 * copied folders, against support bundles and logs. The data dir holds only sealed values and
 * vault.json, which carries no key: the key is in the OS keychain (keychain vault) or derived
 * from a passphrase with scrypt (passphrase vault; its strength is the passphrase's). A sealed
 * value is bound to its purpose by the AAD, so it cannot be swapped into another slot. No key
 * byte appears in an error, a status, a log line or a file of ours.
 * Not protected: malware running as the same user (it can ask the keychain as we do, or read
 * this process's memory, where the vault key stays once unlocked), and anyone who has the user's
 * unlocked session. Integrity of vault.json itself is checked only through its verifier.
 *
 * Failure is explicit, never a silent fallback: without a keychain the vault is 'unavailable'
 * and says how to fix it or how to choose a passphrase vault; a keychain vault whose key is
 * gone is VAULT_KEY_MISSING and no new key is made over existing sealed data; a damaged
 * vault.json is VAULT_DAMAGED and left as it is.
 *
 * States: uninitialized (no vault.json) → the first sealer() makes a keychain vault (or a
 * passphrase vault when DETS_VAULT_PASSPHRASE is set: CI's explicit choice);
 * createPassphraseVault() makes a passphrase vault on request. A keychain vault is unlocked by
 * reading its key from the keychain once per process; a passphrase vault is locked until
 * unlock(passphrase) or DETS_VAULT_PASSPHRASE opens its verifier.
 */
import { createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { ConsoleError, type ErrorCode } from '../../contract/errors';
import type { VaultStatus } from '../../contract/schemas/keys';
import {
  createOsKeychain,
  DEFAULT_KEYCHAIN_TIMEOUT_MS,
  KEYCHAIN_SERVICE,
  PASSPHRASE_ADVICE,
} from './keychain';
import type { SecretSealer } from './sealer';
import type { KeychainBackend, Vault, VaultOptions } from './types';
import {
  checkNewPassphrase,
  decodeKey,
  derive,
  ENV_PASSPHRASE,
  KEY_BYTES,
  makeSealer,
  NEW_SCRYPT,
  sameText,
  SALT_BYTES,
  sealVerifier,
  verifies,
} from './vault-key';
import {
  createVaultFile,
  readVaultFile,
  vaultFilePath,
  type ScryptParams,
  type VaultFile,
} from './vault-file';

/** The keychain account holding a profile's vault key. */
export function vaultKeyAccount(profileId: string): string {
  return `vault-key:${profileId}`;
}

type StatusCode = NonNullable<VaultStatus['code']>;
const STATUS_CODES: readonly ErrorCode[] = [
  'KEYCHAIN_UNAVAILABLE',
  'VAULT_LOCKED',
  'VAULT_PASSPHRASE_WRONG',
  'VAULT_DAMAGED',
  'VAULT_KEY_MISSING',
] satisfies StatusCode[];

interface Opened {
  kind: 'keychain' | 'passphrase';
  sealer: SecretSealer;
}

export function openVault(options: VaultOptions): Vault {
  return new ProfileVault(options);
}

class ProfileVault implements Vault {
  private readonly keychain: KeychainBackend;
  private readonly file: string;
  private readonly now: () => number;
  private opened: Opened | undefined;
  /** The last keychain failure while no vault file exists, for status(). */
  private creationFailure: ConsoleError | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private lastEmitted: string | undefined;

  constructor(private readonly options: VaultOptions) {
    this.keychain =
      options.keychain ??
      createOsKeychain({ timeoutMs: options.keychainTimeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS });
    this.file = vaultFilePath(options.dataDir);
    this.now = options.now ?? Date.now;
  }

  status(): Promise<VaultStatus> {
    return this.exclusive(async () => {
      if (this.opened) return this.unlockedStatus(this.opened.kind);
      let file: VaultFile | undefined;
      try {
        file = await readVaultFile(this.options.dataDir);
      } catch (err) {
        return this.failedStatus(null, err);
      }
      if (!file) {
        const passphrase = this.envPassphrase();
        if (passphrase !== undefined) {
          try {
            checkNewPassphrase(passphrase, ENV_PASSPHRASE);
          } catch (err) {
            return this.publish({ state: 'unavailable', kind: null, detail: (err as Error).message });
          }
          return this.publish({
            state: 'uninitialized',
            kind: null,
            detail: `No vault yet. ${ENV_PASSPHRASE} is set, so the first secret stored creates a passphrase vault in ${this.file}.`,
          });
        }
        if (this.creationFailure) return this.failedStatus(null, this.creationFailure);
        return this.publish({
          state: 'uninitialized',
          kind: null,
          detail:
            'No vault yet: the first key stored creates one, with its key in the OS keychain. ' +
            'Where no keychain answers, create a passphrase vault (or set DETS_VAULT_PASSPHRASE).',
        });
      }
      if (file.kind === 'passphrase' && this.envPassphrase() === undefined) {
        return this.publish({
          state: 'locked',
          kind: 'passphrase',
          detail: `This vault is protected by a passphrase: unlock it (vault.unlock) or set ${ENV_PASSPHRASE}.`,
          code: 'VAULT_LOCKED',
        });
      }
      try {
        await this.openExisting(file);
        return this.unlockedStatus(file.kind);
      } catch (err) {
        return this.failedStatus(file.kind, err);
      }
    });
  }

  sealer(): Promise<SecretSealer> {
    return this.exclusive(async () => {
      if (this.opened) return this.opened.sealer;
      let file: VaultFile | undefined;
      try {
        file = await readVaultFile(this.options.dataDir);
        if (file) return await this.openExisting(file);
        const passphrase = this.envPassphrase();
        if (passphrase !== undefined) {
          checkNewPassphrase(passphrase, ENV_PASSPHRASE);
          return await this.createPassphrase(passphrase);
        }
        return await this.createKeychain();
      } catch (err) {
        if (!file && err instanceof ConsoleError && err.code === 'KEYCHAIN_UNAVAILABLE')
          this.creationFailure = err;
        if (isStatusError(err)) this.failedStatus(file?.kind ?? null, err);
        throw err;
      }
    });
  }

  unlock(passphrase: string): Promise<VaultStatus> {
    return this.exclusive(async () => {
      const file = await readVaultFile(this.options.dataDir);
      if (!file) {
        throw new ConsoleError(
          'NOT_FOUND',
          'There is no vault to unlock yet: the first key stored creates a keychain vault, or create a passphrase vault.',
        );
      }
      if (file.kind !== 'passphrase') {
        throw new ConsoleError(
          'CONFLICT',
          "This profile's vault keeps its key in the OS keychain: it has no passphrase to unlock.",
        );
      }
      // Checked even when already open: a wrong passphrase is always reported as wrong.
      const key = await this.passphraseKey(file, passphrase, 'the passphrase');
      this.opened ??= { kind: 'passphrase', sealer: makeSealer('passphrase', key) };
      return this.unlockedStatus('passphrase');
    });
  }

  createPassphraseVault(passphrase: string): Promise<VaultStatus> {
    return this.exclusive(async () => {
      checkNewPassphrase(passphrase, 'the passphrase');
      const existing = await readVaultFile(this.options.dataDir);
      if (existing) throw this.alreadyExists(existing);
      await this.createPassphrase(passphrase);
      return this.unlockedStatus('passphrase');
    });
  }

  // ------------------------------------------------------------------------------ opening

  private async openExisting(file: VaultFile): Promise<SecretSealer> {
    if (file.kind === 'keychain') {
      const key = await this.keychainKey(file);
      this.opened = { kind: 'keychain', sealer: makeSealer('keychain', key) };
      return this.opened.sealer;
    }
    const passphrase = this.envPassphrase();
    if (passphrase === undefined) {
      throw new ConsoleError(
        'VAULT_LOCKED',
        `The vault is locked: it is protected by a passphrase. Unlock it (vault.unlock) or set ${ENV_PASSPHRASE}.`,
      );
    }
    const key = await this.passphraseKey(file, passphrase, ENV_PASSPHRASE);
    this.opened = { kind: 'passphrase', sealer: makeSealer('passphrase', key) };
    return this.opened.sealer;
  }

  /** Reads the vault key from the keychain (once per process: the caller keeps the sealer). */
  private async keychainKey(file: VaultFile): Promise<KeyObject> {
    const account = vaultKeyAccount(file.profile_id);
    const stored = await this.keychain.get(KEYCHAIN_SERVICE, account).catch((err: unknown) => {
      // A passphrase vault is no way out here: this profile's keys are sealed with the key the
      // keychain holds, so the advice is to bring the keychain back.
      if (err instanceof ConsoleError && err.code === 'KEYCHAIN_UNAVAILABLE') {
        throw new ConsoleError(
          'KEYCHAIN_UNAVAILABLE',
          err.message.replace(
            `, or ${PASSPHRASE_ADVICE}`,
            `. This profile's vault key is kept there (see ${this.file}), and the keys sealed with it open only with it`,
          ),
        );
      }
      throw err;
    });
    if (stored === null) {
      throw new ConsoleError(
        'VAULT_KEY_MISSING',
        `The OS keychain has no vault key for this profile ("${KEYCHAIN_SERVICE}", account "${account}"), which ${this.file} names: ` +
          'it was deleted, or this data folder comes from another machine or user. The keys sealed in this profile cannot be opened ' +
          'without it; nothing was overwritten. Restore the keychain item (from a keychain backup or the original machine), or move this ' +
          'data folder aside and start a new profile.',
      );
    }
    const key = decodeKey(stored);
    if (!key || !verifies(key, file)) {
      throw new ConsoleError(
        'VAULT_KEY_MISSING',
        `The OS keychain item "${KEYCHAIN_SERVICE}" / "${account}" does not hold the key that opens ${this.file} (it was replaced or altered). ` +
          'The keys sealed in this profile cannot be opened without the original; nothing was overwritten.',
      );
    }
    return key;
  }

  private async passphraseKey(file: VaultFile, passphrase: string, source: string): Promise<KeyObject> {
    if (file.kind !== 'passphrase') throw new Error('not a passphrase vault');
    const key = await derive(passphrase, file.kdf);
    if (!verifies(key, file)) {
      throw new ConsoleError(
        'VAULT_PASSPHRASE_WRONG',
        `${source === ENV_PASSPHRASE ? ENV_PASSPHRASE : 'The passphrase'} does not open this vault (${this.file}); nothing was written. Try again with the passphrase the vault was created with.`,
      );
    }
    return key;
  }

  // ------------------------------------------------------------------------------ creating

  private async createKeychain(): Promise<SecretSealer> {
    const profileId = randomUUID();
    const account = vaultKeyAccount(profileId);
    const raw = randomBytes(KEY_BYTES);
    const secret = raw.toString('base64url');
    const key = createSecretKey(raw);
    raw.fill(0);
    await this.keychain.set(KEYCHAIN_SERVICE, account, secret);
    const file: VaultFile = this.newFile('keychain', profileId, key);
    try {
      // Read back before anything is sealed with it: a key the keychain cannot return is no key.
      const back = await this.keychain.get(KEYCHAIN_SERVICE, account);
      if (back === null || !sameText(back, secret)) {
        throw new ConsoleError(
          'KEYCHAIN_UNAVAILABLE',
          `The OS keychain accepted the vault key but did not return it ("${KEYCHAIN_SERVICE}" / "${account}"): check the keychain, or create a passphrase vault / set DETS_VAULT_PASSPHRASE.`,
        );
      }
      if (!(await createVaultFile(this.options.dataDir, file))) {
        // Another process made the vault first: ours is dropped, theirs is used.
        await this.keychain.delete(KEYCHAIN_SERVICE, account).catch(() => false);
        const theirs = await readVaultFile(this.options.dataDir);
        if (!theirs)
          throw new ConsoleError(
            'VAULT_DAMAGED',
            `${this.file} appeared and vanished while the vault was created: try again.`,
          );
        return await this.openExisting(theirs);
      }
    } catch (err) {
      if (!(await readVaultFile(this.options.dataDir).catch(() => undefined))) {
        await this.keychain.delete(KEYCHAIN_SERVICE, account).catch(() => false);
      }
      throw err;
    }
    this.creationFailure = undefined;
    this.opened = { kind: 'keychain', sealer: makeSealer('keychain', key) };
    return this.opened.sealer;
  }

  private async createPassphrase(passphrase: string): Promise<SecretSealer> {
    const profileId = randomUUID();
    const kdf: ScryptParams = {
      name: 'scrypt',
      salt: randomBytes(SALT_BYTES).toString('base64url'),
      ...NEW_SCRYPT,
    };
    const key = await derive(passphrase, kdf);
    const file: VaultFile = { ...this.newFile('passphrase', profileId, key), kdf };
    if (!(await createVaultFile(this.options.dataDir, file))) {
      const theirs = await readVaultFile(this.options.dataDir);
      throw theirs
        ? this.alreadyExists(theirs)
        : new ConsoleError('CONFLICT', `${this.file} changed while the vault was created: try again.`);
    }
    this.creationFailure = undefined;
    this.opened = { kind: 'passphrase', sealer: makeSealer('passphrase', key) };
    return this.opened.sealer;
  }

  /** What every new vault file holds (a passphrase vault adds its kdf): its verifier proves the key. */
  private newFile<K extends VaultFile['kind']>(kind: K, profileId: string, key: KeyObject) {
    return {
      version: 1 as const,
      kind,
      profile_id: profileId,
      created_at: new Date(this.now()).toISOString(),
      verifier: sealVerifier(key, profileId),
    };
  }

  private alreadyExists(file: VaultFile): ConsoleError {
    return new ConsoleError(
      'CONFLICT',
      `This profile already has a ${file.kind} vault (${this.file}, created ${file.created_at}): a profile has one vault, and replacing it would orphan the keys sealed with it.`,
    );
  }

  // ------------------------------------------------------------------------------ status

  private envPassphrase(): string | undefined {
    const value = this.options.env[ENV_PASSPHRASE];
    return value === undefined || value === '' ? undefined : value;
  }

  private unlockedStatus(kind: 'keychain' | 'passphrase'): VaultStatus {
    return this.publish({
      state: 'unlocked',
      kind,
      detail:
        kind === 'keychain'
          ? `Unlocked: the vault key is held by the OS keychain ("${KEYCHAIN_SERVICE}"); secrets are stored sealed in ${this.options.dataDir}.`
          : `Unlocked with its passphrase for this session; secrets are stored sealed in ${this.options.dataDir}.`,
    });
  }

  /** The status a vault failure leaves (published); anything else (an I/O error) rethrows. */
  private failedStatus(kind: 'keychain' | 'passphrase' | null, err: unknown): VaultStatus {
    if (!isStatusError(err)) throw err;
    const code = err.code as StatusCode;
    const state = code === 'VAULT_LOCKED' || code === 'VAULT_PASSPHRASE_WRONG' ? 'locked' : 'unavailable';
    return this.publish({ state, kind, detail: err.message, code });
  }

  private publish(status: VaultStatus): VaultStatus {
    const key = `${status.state}|${status.kind}|${status.code ?? ''}`;
    if (key !== this.lastEmitted) {
      this.lastEmitted = key;
      this.options.events?.emit('vault.changed', status);
    }
    return status;
  }

  /** One vault operation at a time: two first uses must not make two keys. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function isStatusError(err: unknown): err is ConsoleError {
  return err instanceof ConsoleError && STATUS_CODES.includes(err.code);
}
