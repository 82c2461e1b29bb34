export type { Vault, VaultOptions, KeychainBackend } from './types';
export type { SecretSealer } from './sealer';
export { openVault, vaultKeyAccount, MIN_PASSPHRASE_LENGTH } from './vault';
export {
  createOsKeychain,
  KEYCHAIN_SERVICE,
  DEFAULT_KEYCHAIN_TIMEOUT_MS,
  type OsKeychainOptions,
} from './keychain';
export { vaultFilePath } from './vault-file';
