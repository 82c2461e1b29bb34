export type { Composer, EnvironmentStore, ServiceClient, ServiceOptions, SignedPairs } from './types';
export { createEnvironmentStore, derivedJwksUrl } from './environments';
export { createServiceClient } from './client';
