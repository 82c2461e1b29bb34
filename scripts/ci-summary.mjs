#!/usr/bin/env node
// The Markdown job summary of the GitHub Action (action.yml; issue 28 item 4): from the JSON
// report `dets-console conformance --json` or `scenario run --json` printed (its last JSON line
// with "cases"), the counts (passed, failed, expected failures, skipped), the failing cases with
// their details, the expected failures with their reasons, and the listed cases that pass now.
// Without a report (bad usage, exit 2) it quotes what the command said on stderr.
//
//   node scripts/ci-summary.mjs --title "scenario run" --exit-code 1 \
//     --report report.jsonl --stderr stderr.txt >> "$GITHUB_STEP_SUMMARY"
//
// Everything quoted from a report is escaped: a bank's answer is untrusted text.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    title: { type: 'string', default: 'dets-console' },
    'exit-code': { type: 'string', default: '' },
    report: { type: 'string' },
    stderr: { type: 'string' },
  },
});

/** Text as HTML (GitHub renders summaries as Markdown with HTML). */
const html = (text) =>
  String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Text inside a Markdown table cell or list item: HTML-escaped, pipes and new lines defused. */
const inline = (text) => html(text).replace(/\|/g, '&#124;').replace(/\r?\n/g, ' ');

const readOr = async (file) => (file ? readFile(file, 'utf8').catch(() => '') : '');

/** The last line of the output that is a report ({"cases": [...]}); null when there is none. */
function reportOf(text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  for (const line of lines.reverse()) {
    try {
      const value = JSON.parse(line);
      if (value && Array.isArray(value.cases)) return value;
    } catch {
      // not JSON: skipped
    }
  }
  return null;
}

const report = reportOf(await readOr(values.report));
const code = values['exit-code'];
const out = [`### DETS Console: ${inline(values.title)}`, ''];
if (!report) {
  const said = (await readOr(values.stderr)).trim().split('\n').slice(-5).join('\n');
  out.push(
    `No report: the command exited ${inline(code || '?')} before it ran any case.`,
    '',
    '```text',
    said.replace(/```/g, "'''") || '(nothing on stderr)',
    '```',
  );
} else {
  const cases = report.cases;
  const count = (status) => cases.filter((c) => c.status === status).length;
  const expected = cases.filter((c) => c.status === 'expected-failure');
  const nowPassing =
    report.now_passing ?? cases.filter((c) => c.status === 'passed' && c.expected_failure).map((c) => c.id);
  const verdict = count('failed') > 0 ? '❌ failed' : '✅ passed';
  out.push(
    `${verdict} (exit ${inline(code || '?')})`,
    '',
    '| passed | failed | expected failures | skipped |',
    '| ---: | ---: | ---: | ---: |',
    `| ${count('passed')} | ${count('failed')} | ${expected.length} | ${count('skipped')} |`,
    '',
  );
  const name = (c) => `<code>${html(c.scenario ? `${c.scenario}:${c.id}` : c.id)}</code>`;
  const failed = cases.filter((c) => c.status === 'failed');
  if (failed.length > 0) {
    out.push('#### Failed', '');
    for (const c of failed) {
      out.push(
        `<details><summary>❌ ${name(c)}: ${html(c.title)}</summary>`,
        '',
        `<pre>${html(c.detail)}</pre>`,
        '</details>',
        '',
      );
    }
  }
  if (expected.length > 0) {
    out.push('#### Expected failures', '');
    for (const c of expected) out.push(`- ${name(c)}: ${inline(c.expected_failure ?? '')}`);
    out.push('');
  }
  if (nowPassing.length > 0) {
    out.push('#### Listed as expected failures, but passing now (remove them from the list)', '');
    for (const id of nowPassing) out.push(`- <code>${html(id)}</code>`);
    out.push('');
  }
}
process.stdout.write(`${out.join('\n')}\n`);
