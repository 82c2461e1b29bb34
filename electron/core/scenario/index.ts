/**
 * Scenarios (issue 28; DESIGN.md "Scenarios"): flows a bank team keeps in git as JSON files,
 * recorded from stored events or written by hand, replayed against a bank with fresh tokens and
 * fresh or referenced transaction_ids, judged by the one token engine and the one answer judge.
 */
export { parseScenario, refsNeeded, type Need } from './load';
export { runScenario, stepTitle, type ScenarioHooks } from './run';
export type { RunContext, ScenarioTarget } from './context';
export { startScenarioKeys, type ScenarioKeys } from './keys';
export {
  engineDelivery,
  type NotificationDelivery,
  type DeliveryRequest,
  type DeliveryOutcome,
} from './delivery';
export { applyExpectedFailures, unknownIds } from './expected';
export { runSummary, scenarioJunit } from './report';
export { recordScenario, type Recorded } from './record';
export { scenarioHandlers, type ScenarioHandlerDeps } from './handlers';
export { conformanceScenario } from './conformance-plan';
