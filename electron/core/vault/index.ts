export type { Vault, VaultOptions, KeychainBackend } from './types';
export type { SecretSealer } from './sealer';
export { openVault, vaultKeyAccount } from './vault';
export { MIN_PASSPHRASE_LENGTH } from './vault-key';
export {
  createOsKeychain,
  KEYCHAIN_SERVICE,
  DEFAULT_KEYCHAIN_TIMEOUT_MS,
  type OsKeychainOptions,
} from './keychain';
export { vaultFilePath } from './vault-file';
