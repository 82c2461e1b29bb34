/** The service domain: environments, the composer, the client that talks to the active environment. */
export type { Composer, EnvironmentStore, ServiceClient, ServiceOptions } from './types';
export { createComposer, type ComposerOptions } from './compose';
export { createEnvironmentStore } from './environments';
export { createServiceClient, specJwk } from './client';
export { serviceWords } from './explain';
export { authenticateUrl } from './target';
export { environmentJwksSources } from './jwks-sources';
export {
  keyListRows,
  preferredKid,
  retiredAfter,
  statusIn,
  withEnvironments,
  type KeyListRow,
} from './key-environments';
