/**
 * `--expected-failures FILE` (DESIGN.md "Conformance of a bank's notification endpoints",
 * "Scenarios"): a JSON object `{"<case id>": "<reason>"}` naming the cases a team knows fail
 * today. A run reports those failures without failing, and says which listed cases now pass, so
 * the file can shrink as the bank is fixed. Written once here for `conformance` and for
 * `scenario run` (issue 28): both parse the file with {@link readExpectedFailures} (or
 * {@link parseExpectedFailures}), apply it to their finished cases with
 * {@link applyExpectedFailures}, print {@link expectedFailuresText} and exit with
 * {@link ExpectedFailuresVerdict.exitCode}.
 *
 * What "a case" is here is only `{id, status}`: a conformance case, a scenario step, anything a
 * run reports by a stable id.
 *
 * Threat model: the file comes from the team's repository and is read with a size cap; its
 * reasons are only ever printed, never executed, and ids are compared as exact strings.
 */
import { readFile, stat } from 'node:fs/promises';
import { badArgument, parseJsonText } from '../common';

/** The flag's name, as BAD_ARGUMENT's `details.field` and the CLI's message name it. */
export const EXPECTED_FAILURES_FIELD = 'expected-failures';
/** A file past this is not a list of known failures (a few hundred cases at most). */
export const EXPECTED_FAILURES_MAX_BYTES = 256 * 1024;
const MAX_REASON = 1000;

/** Case id → reason, in the file's order. */
export type ExpectedFailures = ReadonlyMap<string, string>;

/** What a run reports of each case: its stable id and how it ended. */
export interface CaseOutcome {
  id: string;
  status: 'passed' | 'failed' | 'skipped';
}

/** A run's cases judged against the file. */
export interface ExpectedFailuresVerdict {
  /** Failed and listed: reported, not failing the run. */
  expected: Array<{ id: string; reason: string }>;
  /** Failed and not listed: these fail the run. */
  unexpected: string[];
  /** Listed but passed: the file can lose these lines. */
  nowPassing: Array<{ id: string; reason: string }>;
  /** Listed but not run at all (a typo, a case renamed, or skipped): said, not failing. */
  notRun: Array<{ id: string; reason: string }>;
  /** 1 when any case failed unexpectedly, else 0 (DESIGN.md exit codes). */
  exitCode: 0 | 1;
}

/**
 * Parses the file's text. BAD_ARGUMENT with `details.field` "expected-failures" when it is not
 * a JSON object of non-empty string ids to non-empty string reasons.
 *
 * @example
 * parseExpectedFailures('{"notify.repeat.upper-case": "BANK-123: ids compared as typed"}');
 * // Map { 'notify.repeat.upper-case' => 'BANK-123: ids compared as typed' }
 */
export function parseExpectedFailures(text: string, source = 'the file'): ExpectedFailures {
  const value = parseJsonText(text, EXPECTED_FAILURES_FIELD);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw refused(`${source} must hold a JSON object {"<case id>": "<reason>"}`);
  }
  const out = new Map<string, string>();
  for (const [id, reason] of Object.entries(value as Record<string, unknown>)) {
    if (id.trim() === '') throw refused(`${source} lists an empty case id`);
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw refused(`${source}: the reason for ${JSON.stringify(id)} must be a non-empty string`);
    }
    if (reason.length > MAX_REASON) {
      throw refused(
        `${source}: the reason for ${JSON.stringify(id)} is longer than ${MAX_REASON} characters`,
      );
    }
    out.set(id, reason.trim());
  }
  return out;
}

/**
 * Reads and parses FILE; BAD_ARGUMENT (field "expected-failures") when it is missing, a folder,
 * too large or not the expected JSON.
 *
 * @example
 * const expected = await readExpectedFailures('conformance-known.json');
 */
export async function readExpectedFailures(file: string): Promise<ExpectedFailures> {
  const info = await stat(file).catch(() => null);
  if (!info) throw refused(`${file} does not exist`);
  if (!info.isFile()) throw refused(`${file} is not a file`);
  if (info.size > EXPECTED_FAILURES_MAX_BYTES) {
    throw refused(`${file} is larger than ${EXPECTED_FAILURES_MAX_BYTES / 1024} KiB`);
  }
  return parseExpectedFailures(await readFile(file, 'utf8'), file);
}

/**
 * Judges a finished run's cases against the file: a failure listed is expected, a failure not
 * listed fails the run, a listed case that passed is "now passing".
 *
 * @example
 * const verdict = applyExpectedFailures(report.cases, expected);
 * process.exitCode = verdict.exitCode;
 */
export function applyExpectedFailures(
  cases: readonly CaseOutcome[],
  expected: ExpectedFailures,
): ExpectedFailuresVerdict {
  const verdict: ExpectedFailuresVerdict = {
    expected: [],
    unexpected: [],
    nowPassing: [],
    notRun: [],
    exitCode: 0,
  };
  const seen = new Set<string>();
  for (const c of cases) {
    seen.add(c.id);
    const reason = expected.get(c.id);
    if (c.status === 'failed') {
      if (reason === undefined) verdict.unexpected.push(c.id);
      else verdict.expected.push({ id: c.id, reason });
    } else if (reason !== undefined) {
      if (c.status === 'passed') verdict.nowPassing.push({ id: c.id, reason });
      else verdict.notRun.push({ id: c.id, reason });
    }
  }
  for (const [id, reason] of expected) if (!seen.has(id)) verdict.notRun.push({ id, reason });
  verdict.exitCode = verdict.unexpected.length > 0 ? 1 : 0;
  return verdict;
}

/**
 * The verdict as lines for a terminal or a job summary; empty when there is nothing to say.
 *
 * @example
 * out(expectedFailuresText(verdict));
 */
export function expectedFailuresText(verdict: ExpectedFailuresVerdict): string {
  const lines: string[] = [];
  if (verdict.expected.length > 0) {
    lines.push(`Expected failures (${verdict.expected.length}, not failing the run):`);
    for (const e of verdict.expected) lines.push(`  ~ ${e.id}: ${e.reason}`);
  }
  if (verdict.nowPassing.length > 0) {
    lines.push(
      `Listed as expected failures but now passing (${verdict.nowPassing.length}; remove them from the file):`,
    );
    for (const e of verdict.nowPassing) lines.push(`  ✓ ${e.id}: ${e.reason}`);
  }
  if (verdict.notRun.length > 0) {
    lines.push(`Listed as expected failures but not run (${verdict.notRun.length}; check the ids):`);
    for (const e of verdict.notRun) lines.push(`  ? ${e.id}`);
  }
  if (verdict.unexpected.length > 0) {
    lines.push(`Unexpected failures (${verdict.unexpected.length}): ${verdict.unexpected.join(', ')}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/**
 * The verdict as the `expected_failures` member a `--json` report adds (snake_case, like the
 * rest of the report).
 */
export function expectedFailuresJson(verdict: ExpectedFailuresVerdict): {
  expected: Array<{ id: string; reason: string }>;
  unexpected: string[];
  now_passing: Array<{ id: string; reason: string }>;
  not_run: Array<{ id: string; reason: string }>;
} {
  return {
    expected: verdict.expected,
    unexpected: verdict.unexpected,
    now_passing: verdict.nowPassing,
    not_run: verdict.notRun,
  };
}

function refused(problem: string) {
  return badArgument(`--${EXPECTED_FAILURES_FIELD}: ${problem}`, EXPECTED_FAILURES_FIELD);
}
