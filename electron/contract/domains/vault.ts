import { CreatePassphraseVaultInput, UnlockVaultInput, VaultStatus } from '../schemas/keys';
import { method, NoInput } from './method';

/** `vault.*` methods: the profile's vault (DESIGN.md "Secrets"). */
export const vaultMethods = {
  'vault.status': method({
    summary: 'Whether the vault is unlocked, locked or unavailable, which kind it is, and what to do.',
    input: NoInput,
    output: VaultStatus,
  }),
  'vault.unlock': method({
    summary: 'Unlock a passphrase vault.',
    input: UnlockVaultInput,
    output: VaultStatus,
  }),
  'vault.createPassphrase': method({
    summary: 'Create an explicit passphrase vault (scrypt) where no OS keychain answers.',
    input: CreatePassphraseVaultInput,
    output: VaultStatus,
  }),
} as const;

/** `vault.*` events. */
export const vaultEvents = {
  'vault.changed': VaultStatus,
} as const;
