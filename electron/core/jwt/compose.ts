import type { KeyStore } from '../keys';
import type { Composer, EnvironmentStore, SignedPairs } from '../service/types';

/** Placeholder until the composer lands (issue 4). */
export function createComposer(_options: {
  keys: KeyStore;
  pairs: SignedPairs;
  environments: EnvironmentStore;
  now?: () => number;
}): Composer {
  throw new Error('not implemented');
}
