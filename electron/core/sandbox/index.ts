export type { Sandbox, SandboxListener, SandboxOptions } from './types';
export { createSandbox } from './sandbox';
export type { PublishedJwk } from './signing-keys';
export { malformedBody } from './notify';
export { DELIVERY_SETTING_DEFAULTS } from './state-schema';
export {
  DeliveryEngine,
  DeliveryScheduler,
  sendAttempt,
  validTimeScale,
  type AttemptOutcome,
  type DeliveryEngineOptions,
  type DeliverySpec,
  type LadderSettings,
} from './delivery';
