/**
 * A run of the `notify.*` cases with live progress (issue 27 item 4): what the Conformance page's
 * Notifications section and the self-check play, as `conformance --notify-url` does. Each case
 * is told as it begins (what it sends, the most it can take) and as it finishes; the report is
 * the one `withNotifyCases` builds, judged against the run's expected failures when it has some.
 */
import type { CaseResult, ConformanceReport } from '../../contract/schemas/conformance';
import { applyExpectedFailures, expectedFailuresJson, type ExpectedFailures } from './expected-failures';
import { NOTIFY_CASES, notifyCaseRequests, runNotifyCases, type NotifyTarget } from './notify-cases';
import { withNotifyCases } from './notify-report';
import type { RunHooks } from './run-state';

/** Where the cases sit in a larger run (the self-check plays them after the callback cases). */
export interface NotifyPlace {
  /** Cases finished before the first `notify.*` one. */
  offset: number;
  /** Cases in the whole run. */
  total: number;
}

/**
 * Plays every `notify.*` case against `target`, telling `hooks` as each begins and finishes.
 *
 * @example
 * const cases = await playNotifyCases(target, { onCase: (c, done) => draw(c, done) });
 */
export function playNotifyCases(
  target: NotifyTarget,
  hooks: Omit<RunHooks, 'kind'> = {},
  place: NotifyPlace = { offset: 0, total: NOTIFY_CASES.length },
): Promise<CaseResult[]> {
  const url = `${target.notifyUrl.replace(/\/+$/, '')}${target.prefix}`;
  let done = place.offset;
  return runNotifyCases(
    target,
    (result) => hooks.onCase?.(result, ++done, place.total),
    (c) =>
      hooks.onActivity?.({
        kind: 'case',
        case_id: c.id,
        text: `sending ${c.sent.replaceAll('`', '')} to ${url}/${c.event}`,
        timeout_ms: notifyCaseRequests(c, target.probeUrl !== undefined) * target.giveUpMs,
        until: null,
        jwks_fetches: 0,
      }),
  );
}

/**
 * The report of a notification run: its cases, judged against `expected` when given (the
 * verdict rides in `expected_failures`, and JUnit shows a listed failure as skipped).
 *
 * @example
 * const report = notifyReport(cases, { notifyUrl, startedAt, finishedAt: Date.now() }, expected);
 */
export function notifyReport(
  cases: CaseResult[],
  run: { notifyUrl: string; startedAt: number; finishedAt: number },
  expected: ExpectedFailures | null,
): ConformanceReport {
  const report = withNotifyCases(null, cases, run);
  if (!expected) return report;
  return {
    ...report,
    expected_failures: expectedFailuresJson(applyExpectedFailures(report.cases, expected)),
  };
}
