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
export { summaryJson, toJunit, junitView, reportFile, junitFile, xmlEscape } from './report';
export { DEFAULT_JWKS_PORT, runnerJwksUrl } from './jwks-server';
export { planCases } from './plan';
// What scenario runs share with the suite (issue 28 item 5: the same keys, flaws and JWKS).
export { badToken, type BadToken } from './bad-tokens';
export { generateRunnerKey, serviceClaims, signRs256, decodeForReport, type RunnerKey } from './keys';
export { startJwksServer, type JwksServer } from './jwks-server';
export { quote, answered } from './send';
export { passedSummary, expectedValid } from './cases/valid';
export { notRefusedWhy } from './cases/negative';
export { NEGATIVE_KINDS, ROUTES, type NegativeKind, type PlannedCase, type RouteName } from './plan';
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
export {
  NOTIFY_CASES,
  runNotifyCase,
  runNotifyCases,
  type NotifyCase,
  type NotifyTarget,
} from './notify-cases';
export { withNotifyCases } from './notify-report';
export { notifyReport, playNotifyCases, type NotifyPlace } from './notify-run';
