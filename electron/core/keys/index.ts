export type { KeyStore, KeyStoreOptions } from './types';
export { createKeyStore, aadFor, specJwk } from './key-store';
export { readPrivateKey, type ReadPrivateKey } from './private-key';
export { daysUntil, isExpired, utcDay } from './expiry';
