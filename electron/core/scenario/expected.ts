/**
 * `--expected-failures FILE` (DESIGN.md "Conformance of a bank's notification endpoints", and
 * "Scenarios"): a JSON object `{"<id>": "<reason>"}`, as the OpenID conformance suite's runner
 * takes them. A listed step that fails is reported as an expected failure and does not fail the
 * run; a listed step that passes is reported as now passing, so the list can lose it. An id that
 * no step has is refused (exit 2), naming it: a stale list would otherwise hide nothing silently.
 *
 * The file is read by the one reader of the format, conformance's `parseExpectedFailures`
 * (conformance/expected-failures.ts); what is here is only how a scenario report shows the list.
 */
import type { ScenarioReport } from '../../contract/schemas/scenario';
import { tally } from './run';

/** The listed ids no step has (to refuse before running). */
export function unknownIds(expected: ReadonlyMap<string, string>, ids: Iterable<string>): string[] {
  const known = new Set(ids);
  return [...expected.keys()].filter((id) => !known.has(id));
}

/**
 * The report with the list applied: listed failures become `expected-failure`, listed passes are
 * named in `now_passing`; each listed case carries its reason.
 */
export function applyExpectedFailures(
  report: ScenarioReport,
  expected: ReadonlyMap<string, string>,
): ScenarioReport {
  const nowPassing: string[] = [...report.now_passing];
  const cases = report.cases.map((c) => {
    const reason = expected.get(c.id);
    if (reason === undefined) return c;
    if (c.status === 'passed') nowPassing.push(c.id);
    return {
      ...c,
      expected_failure: reason,
      status: c.status === 'failed' ? ('expected-failure' as const) : c.status,
    };
  });
  return tally(report.scenario, report.started_at, report.duration_ms, cases, nowPassing);
}
