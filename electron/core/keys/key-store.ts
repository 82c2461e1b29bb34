import type { KeyStore, KeyStoreOptions } from './types';

/** Placeholder until the key store lands (issue 4). */
export function createKeyStore(_options: KeyStoreOptions): KeyStore {
  throw new Error('not implemented');
}
