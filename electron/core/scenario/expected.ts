/**
 * `--expected-failures FILE` (DESIGN.md "Conformance of a bank's notification endpoints", and
 * "Scenarios"): a JSON object `{"<id>": "<reason>"}`, as the OpenID conformance suite's runner
 * takes them. A listed step that fails is reported as an expected failure and does not fail the
 * run; a listed step that passes is reported as now passing, so the list can lose it. An id that
 * no step has is refused (exit 2), naming it: a stale list would otherwise hide nothing silently.
 *
 * Issue 27 builds the same file's reader for conformance in the conformance domain; when it lands,
 * this parser gives way to it (one reader of the format).
 */
import { ConsoleError } from '../../contract/errors';
import type { ScenarioReport } from '../../contract/schemas/scenario';
import { tally } from './run';

/** At most this many entries: a list longer than any plan is not an expected-failures list. */
const MAX_ENTRIES = 10_000;

const refuse = (message: string) => new ConsoleError('BAD_ARGUMENT', message, { field: 'expected-failures' });

/**
 * Parses the file's text into id → reason; `source` names the file in every refusal.
 *
 * @example
 * parseExpectedFailures('{"payin-dup": "bank#412: repeats answered 409"}', 'xfail.json');
 */
export function parseExpectedFailures(text: string, source: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw refuse(`${source}: not valid JSON (${err instanceof Error ? err.message : 'invalid'})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw refuse(`${source}: must be a JSON object {"<case or step id>": "<reason>"}`);
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_ENTRIES) throw refuse(`${source}: more than ${MAX_ENTRIES} entries`);
  const out = new Map<string, string>();
  for (const [id, reason] of entries) {
    if (id.trim() === '') throw refuse(`${source}: an id is empty`);
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw refuse(`${source}: "${id}": the reason must be a non-empty string (why it is expected to fail)`);
    }
    out.set(id, reason.trim());
  }
  return out;
}

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
