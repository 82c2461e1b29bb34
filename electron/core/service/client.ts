import type { ServiceClient, ServiceOptions } from './types';

/** Placeholder until the service client lands (issue 4). */
export function createServiceClient(_options: ServiceOptions): ServiceClient {
  throw new Error('not implemented');
}
