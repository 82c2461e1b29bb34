/**
 * The conformance suite (issue 7): the runner that plays the service against a bank's callbacks
 * (runner.ts: plan, cases, report), the self-check against the console's own bank endpoints,
 * and the contract's method handlers (handlers.ts).
 */
export { conformanceHandlers, describeListenError } from './handlers';
export {
  startConformance,
  type ConformanceRunner,
  type ConformanceTarget,
  type RunnerOptions,
} from './runner';
export { runSelfCheck, selfCheckCustomer } from './self-check';
export { summaryJson, toJunit, reportFile, junitFile, xmlEscape } from './report';
export { DEFAULT_JWKS_PORT, runnerJwksUrl } from './jwks-server';
export { planCases } from './plan';
export {
  applyExpectedFailures,
  EXPECTED_FAILURES_FIELD,
  expectedFailuresJson,
  expectedFailuresText,
  parseExpectedFailures,
  readExpectedFailures,
  type CaseOutcome,
  type ExpectedFailures,
  type ExpectedFailuresVerdict,
} from './expected-failures';
export { NOTIFY_CASES, runNotifyCase, runNotifyCases, type NotifyTarget } from './notify-cases';
export { withNotifyCases } from './notify-report';
