export type { KeyStore, KeyStoreOptions } from './types';
export { createKeyStore, aadFor, specJwk } from './key-store';
export { readPrivateKey, type ReadPrivateKey } from './private-key';
export { daysUntil, defaultExpiry, isExpired, utcDay } from './expiry';
