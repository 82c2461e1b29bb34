export type { KeyStore, KeyStoreOptions } from './types';
export { createKeyStore, aadFor, specJwk } from './key-store';
export { readPrivateKey, MIN_RSA_BITS, type ReadPrivateKey } from './private-key';
export { daysUntil, isExpired, utcDay } from './expiry';
