import type { Sandbox, SandboxOptions } from './types';

/** Placeholder until the sandbox lands (issue 3). Loads state from the data directory. */
export async function createSandbox(_options: SandboxOptions): Promise<Sandbox> {
  throw new Error('not implemented');
}
