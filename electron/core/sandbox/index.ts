export type { Sandbox, SandboxListener, SandboxOptions } from './types';
export { createSandbox } from './sandbox';
export type { PublishedJwk } from './signing-keys';
export { malformedBody } from './notify';
