import type { Vault, VaultOptions } from './types';

/** Placeholder until the vault lands (issue 4). */
export function openVault(_options: VaultOptions): Vault {
  throw new Error('not implemented');
}
