/**
 * The report's outward forms: the `--json` object DESIGN.md fixes (`{"passed","failed","cases":
 * [{"id","title","status","detail"}]}`), the full JSON export (every case's exchange, tokens
 * included, private keys never: the runner never puts one in a report), and JUnit XML for CI
 * systems (one testsuite; a testcase per case with its time; failure message and text; skipped).
 */
import type { CaseResult, ConformanceReport } from '../../contract/schemas/conformance';
import type { RunState } from './run-state';

/**
 * A finished run's report: its target and keys, the JWKS fetches it saw, the counts and every
 * case in run order.
 *
 * @example
 * for (const c of plan) await runCase(state, c);
 * return buildReport(state, now());
 */
export function buildReport(state: RunState, finishedAt: number): ConformanceReport {
  const { jwks, published } = state.runner;
  const count = (s: CaseResult['status']) => state.results.filter((r) => r.status === s).length;
  return {
    kind: state.hooks.kind ?? 'run',
    bank_auth_url: state.base,
    obj: state.obj,
    sub: state.sub,
    jwks_url: jwks.url,
    kids: published.map((k) => k.kid),
    jwks_fetches: jwks.fetches.length - state.fetchesBefore,
    started_at: new Date(state.startedAt).toISOString(),
    finished_at: new Date(finishedAt).toISOString(),
    duration_ms: finishedAt - state.startedAt,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    cases: state.results,
  };
}

/** DESIGN.md "Command line": the `conformance --json` object, exactly these keys. */
export function summaryJson(report: ConformanceReport): {
  passed: number;
  failed: number;
  cases: Array<{ id: string; title: string; status: string; detail: string }>;
} {
  return {
    passed: report.passed,
    failed: report.failed,
    cases: report.cases.map((c) => ({ id: c.id, title: c.title, status: c.status, detail: c.detail })),
  };
}

/** The full report as a file a person saves (pretty JSON). */
export function reportFile(report: ConformanceReport): { text: string; filename: string; mime: string } {
  return {
    text: `${JSON.stringify({ format: 'dets-console-conformance-report', version: 1, ...report }, null, 2)}\n`,
    filename: `conformance-${stamp(report.started_at)}.json`,
    mime: 'application/json',
  };
}

export function junitFile(report: ConformanceReport): { text: string; filename: string; mime: string } {
  return {
    text: toJunit(report),
    filename: `conformance-${stamp(report.started_at)}.xml`,
    mime: 'application/xml',
  };
}

const stamp = (iso: string) => iso.replace(/[:.]/g, '-');

/**
 * Text as XML character data or an attribute value: the five special characters escaped, and
 * characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/FFFF)
 * replaced by U+FFFD, so any bank answer quoted in a detail still makes a well-formed file.
 */
export function xmlEscape(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === "'") out += '&apos;';
    else if (c === 0x9 || c === 0xa || c === 0xd) out += ch;
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff) || c === 0xfffe || c === 0xffff) out += '\uFFFD';
    else out += ch;
  }
  return out;
}

/**
 * The report as JUnit sees it (DESIGN.md `--expected-failures`): a listed failure is a skipped
 * test case whose message starts "expected failure (reason)", so CI keeps it visible without
 * failing; the CLI's file and the page's export alike.
 *
 * @example
 * junitView({ ...report, expected_failures }).failed; // report.failed minus the listed ones
 */
export function junitView(report: ConformanceReport): ConformanceReport {
  const expected = report.expected_failures?.expected ?? [];
  if (expected.length === 0) return report;
  const reasons = new Map(expected.map((e) => [e.id, e.reason]));
  const cases = report.cases.map((c) => {
    const reason = c.status === 'failed' ? reasons.get(c.id) : undefined;
    return reason === undefined
      ? c
      : { ...c, status: 'skipped' as const, detail: `expected failure (${reason}): ${c.detail}` };
  });
  const moved = cases.filter((c, i) => c !== report.cases[i]).length;
  return { ...report, cases, failed: report.failed - moved, skipped: report.skipped + moved };
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

/**
 * JUnit XML (the de-facto schema Jenkins, GitLab, GitHub Actions reporters and Azure read): a
 * `testsuites` root with one `testsuite` (tests, failures, errors, skipped, time, timestamp),
 * its run parameters as properties, one `testcase` per case (name = the stable case id,
 * classname = conformance.<route>, time in seconds), `failure` with the detail as message and
 * text, `skipped` with its reason, and the title and detail in `system-out`. A failure the run
 * expected (`expected_failures`) is a skipped test case saying why (junitView).
 */
export function toJunit(listed: ConformanceReport): string {
  const report = junitView(listed);
  const a = xmlEscape;
  const suiteName =
    report.kind === 'self-check' ? 'dets-console conformance self-check' : 'dets-console conformance';
  const time = seconds(report.duration_ms);
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites name="${a(suiteName)}" tests="${report.cases.length}" failures="${report.failed}" errors="0" skipped="${report.skipped}" time="${time}">`,
  );
  lines.push(
    `  <testsuite name="${a(suiteName)}" tests="${report.cases.length}" failures="${report.failed}" errors="0" skipped="${report.skipped}" time="${time}" timestamp="${a(report.started_at.replace(/\.\d+Z$/, ''))}" hostname="127.0.0.1">`,
  );
  lines.push('    <properties>');
  for (const [name, value] of [
    ['bank_auth_url', report.bank_auth_url],
    ['notify_url', report.notify_url ?? ''],
    ['obj', report.obj],
    ['sub', report.sub],
    ['jwks_url', report.jwks_url],
    ['kids', report.kids.join(' ')],
  ] as const) {
    lines.push(`      <property name="${a(name)}" value="${a(value)}"/>`);
  }
  lines.push('    </properties>');
  for (const c of report.cases) {
    const classname = `conformance.${c.route ? c.route.replace(/^\//, '') : 'suite'}`;
    const open = `    <testcase name="${a(c.id)}" classname="${a(classname)}" time="${seconds(c.duration_ms)}"`;
    const out = `      <system-out>${a(`${c.title}\n${c.detail}`)}</system-out>`;
    if (c.status === 'failed') {
      lines.push(`${open}>`);
      lines.push(
        `      <failure message="${a(c.detail)}" type="${a(c.id)}">${a(`${c.title}\n\n${c.detail}`)}</failure>`,
      );
      lines.push(out, '    </testcase>');
    } else if (c.status === 'skipped') {
      lines.push(`${open}>`, `      <skipped message="${a(c.detail)}"/>`, out, '    </testcase>');
    } else {
      lines.push(`${open}>`, out, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
