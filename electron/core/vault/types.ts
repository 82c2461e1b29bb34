import type { VaultStatus } from '../../contract/schemas/keys';
import type { SecretSealer } from './sealer';

/**
 * The profile's vault (DESIGN.md "Secrets"): one random 256-bit vault key per profile, held by
 * the OS keychain (or, only when the user chooses it explicitly, derived from a passphrase with
 * scrypt); secrets are sealed with AES-256-GCM under it and stored in the data directory.
 */
export interface Vault {
  status(): Promise<VaultStatus>;
  /**
   * The sealer, once the vault is unlocked (creating the keychain vault key on first use).
   * Rejects with KEYCHAIN_UNAVAILABLE, VAULT_LOCKED, VAULT_PASSPHRASE_WRONG or VAULT_DAMAGED,
   * each with a message that says what to do.
   */
  sealer(): Promise<SecretSealer>;
  /** Unlocks a passphrase vault (or checks DETS_VAULT_PASSPHRASE). */
  unlock(passphrase: string): Promise<VaultStatus>;
  /** Creates a passphrase vault where no keychain answers; refused when a vault already exists. */
  createPassphraseVault(passphrase: string): Promise<VaultStatus>;
}

/** The OS keychain as the vault sees it: one secret string per (service, account). */
export interface KeychainBackend {
  get(service: string, account: string): Promise<string | null>;
  set(service: string, account: string, secret: string): Promise<void>;
  delete(service: string, account: string): Promise<boolean>;
}

export interface VaultOptions {
  dataDir: string;
  /** DETS_VAULT_PASSPHRASE is read from here. */
  env: NodeJS.ProcessEnv;
  /** Defaults to the real keychain (@napi-rs/keyring, Secret Service pinned on Linux). */
  keychain?: KeychainBackend;
  /** Keychain calls that take longer fail with KEYCHAIN_UNAVAILABLE (a wedged D-Bus can hang). Default 5 s. */
  keychainTimeoutMs?: number;
  /** Gets `vault.changed` whenever the vault's state, kind or failure changes. */
  events?: { emit(event: 'vault.changed', payload: VaultStatus): void };
  /** Clock for `created_at`; tests may fix it. */
  now?: () => number;
}
