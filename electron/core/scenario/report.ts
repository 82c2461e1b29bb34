/**
 * A scenario run's outward forms: the `--json` object (the conformance report's shape, DESIGN.md
 * "Command line", with each scenario's name and the expected failures), and JUnit XML with one
 * test case per step whose name is the step's name and whose class is `scenario.<name>`: stable
 * across runs and free of URLs, so CI systems track a step's history by it.
 */
import type { ScenarioReport } from '../../contract/schemas/scenario';
import { xmlEscape } from '../conformance';

/** The `--json` object of a run over one or more files. */
export function runSummary(reports: readonly ScenarioReport[]) {
  const sum = (k: 'passed' | 'failed' | 'skipped' | 'expected_failures') =>
    reports.reduce((n, r) => n + r[k], 0);
  return {
    passed: sum('passed'),
    failed: sum('failed'),
    skipped: sum('skipped'),
    expected_failures: sum('expected_failures'),
    now_passing: reports.flatMap((r) => r.now_passing),
    cases: reports.flatMap((r) =>
      r.cases.map((c) => ({
        id: c.id,
        scenario: r.scenario,
        title: c.title,
        status: c.status,
        detail: c.detail,
        ...(c.expected_failure === null ? {} : { expected_failure: c.expected_failure }),
      })),
    ),
    scenarios: reports,
  };
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

/**
 * JUnit XML: a testsuite per scenario, a testcase per step (name: the step's name; classname:
 * `scenario.<scenario>`), `failure` for a failed step, `skipped` for a skipped one and for an
 * expected failure (with its reason, as pytest's xfail is reported).
 */
export function scenarioJunit(reports: readonly ScenarioReport[]): string {
  const a = xmlEscape;
  const total = reports.reduce((n, r) => n + r.cases.length, 0);
  const failures = reports.reduce((n, r) => n + r.failed, 0);
  const skipped = reports.reduce((n, r) => n + r.skipped + r.expected_failures, 0);
  const time = seconds(reports.reduce((n, r) => n + r.duration_ms, 0));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dets-console scenarios" tests="${total}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}">`,
  ];
  for (const r of reports) {
    lines.push(
      `  <testsuite name="${a(`scenario.${r.scenario}`)}" tests="${r.cases.length}" failures="${r.failed}" errors="0" skipped="${r.skipped + r.expected_failures}" time="${seconds(r.duration_ms)}" timestamp="${a(r.started_at.replace(/\.\d+Z$/, ''))}">`,
    );
    for (const c of r.cases) {
      lines.push(
        `    <testcase name="${a(c.id)}" classname="${a(`scenario.${r.scenario}`)}" time="${seconds(c.duration_ms)}">`,
      );
      if (c.status === 'failed')
        lines.push(
          `      <failure message="${a(c.detail)}" type="${a(c.failed_check ?? 'failed')}">${a(`${c.title}\n\n${c.detail}`)}</failure>`,
        );
      else if (c.status === 'skipped') lines.push(`      <skipped message="${a(c.detail)}"/>`);
      else if (c.status === 'expected-failure')
        lines.push(`      <skipped message="${a(`expected failure: ${c.expected_failure ?? ''}`)}"/>`);
      lines.push(`      <system-out>${a(`${c.title}\n${c.detail}`)}</system-out>`, '    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
