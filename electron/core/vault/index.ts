export type { Vault, VaultOptions, KeychainBackend } from './types';
export type { SecretSealer } from './sealer';
export { openVault } from './vault';
