import type { SignedPairs } from '../service/types';

/** Placeholder until signed pairs land (issue 4): `<dataDir>/signed-pairs.json`. */
export function createSignedPairs(_options: { dataDir: string; now?: () => number }): SignedPairs {
  throw new Error('not implemented');
}
