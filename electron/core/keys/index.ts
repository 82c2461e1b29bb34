export type { KeyStore, KeyStoreOptions } from './types';
export { createKeyStore } from './key-store';
