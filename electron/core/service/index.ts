export type { Composer, EnvironmentStore, ServiceClient, ServiceOptions, SignedPairs } from './types';
export { createEnvironmentStore } from './environments';
export { createServiceClient } from './client';
