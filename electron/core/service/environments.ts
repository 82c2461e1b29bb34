import type { EnvironmentStore } from './types';

/** Placeholder until environments land (issue 4). `sandboxUrl` gives the sandbox listener's URL when it runs. */
export function createEnvironmentStore(_options: {
  dataDir: string;
  sandboxUrl: () => string | null;
}): EnvironmentStore {
  throw new Error('not implemented');
}
