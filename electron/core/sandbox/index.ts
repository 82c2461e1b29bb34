export type { Sandbox, SandboxListener, SandboxOptions } from './types';
export { createSandbox } from './sandbox';
