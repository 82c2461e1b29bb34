/**
 * Notification delivery like the service (issue 27): the engine, its ladder and scheduler. The
 * sandbox delivers through it; issue 28's scenarios may too (through the sandbox barrel).
 */
export { DeliveryEngine, type DeliveryEngineOptions, type DeliverySpec, type Started } from './engine';
export {
  accepted,
  attemptTimeoutMs,
  nextStep,
  validTimeScale,
  waitAfterAttempt,
  type LadderSettings,
} from './ladder';
export { DeliveryScheduler } from './scheduler';
export { sendAttempt, type AttemptOutcome, type AttemptRequest } from './attempt';
