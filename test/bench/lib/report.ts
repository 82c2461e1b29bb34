/** Plain-text output of the bench: a table per suite, ratios, and PASS/MISSED per target rule. */
import type { TargetRun } from './rounds';
import type { TargetVerdict } from './stats';

const num = (v: number, digits = 0): string => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

/** Left-aligned first column, right-aligned others, columns as wide as their widest cell. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * One row per target: median throughput (with the rounds' spread), median over rounds of each
 * round's p50/p99, the p99 and max of all responses pooled, failures.
 */
export function formatRuns(runs: readonly TargetRun[]): string {
  // The server's CPU per request, where a suite measured it (the bank suite's children).
  const cpu = runs.some((r) => Number.isFinite(r.summary.cpuPerRequestUs));
  return formatTable(
    [
      'target',
      'req/s (median)',
      'rounds min–max',
      'p50 ms',
      'p99 ms',
      'p99 pooled',
      'max ms',
      'responses',
      'non-2xx',
      'errors',
      ...(cpu ? ['CPU µs/req'] : []),
    ],
    runs.map((r) => {
      const s = r.summary;
      return [
        r.title,
        num(s.rps),
        `${num(s.rpsMin)}–${num(s.rpsMax)}`,
        num(s.roundP50Ms, 2),
        num(s.roundP99Ms, 2),
        num(s.latencyMs.p99, 2),
        num(s.latencyMs.max, 1),
        String(s.responses),
        String(s.non2xx),
        String(s.errors + s.mismatches),
        ...(cpu ? [num(s.cpuPerRequestUs, 1)] : []),
      ];
    }),
  );
}

/** A figure: integers as they are, other numbers with two decimals. */
export function formatFigure(v: number): string {
  return Number.isInteger(v) ? String(v) : num(v, 2);
}

/** "PASS" or "MISSED" with the value against its threshold. */
export function formatVerdict(v: TargetVerdict): string {
  const digits = v.unit === '×' ? 2 : Number.isInteger(v.value) && v.unit !== 'ms' ? 0 : 1;
  const value =
    v.value === null ? 'not measured' : `${num(v.value, digits)}${v.unit === '×' ? '×' : ` ${v.unit}`}`;
  const threshold = `${v.threshold}${v.unit === '×' ? '×' : ` ${v.unit}`}`;
  return `${v.pass ? 'PASS  ' : 'MISSED'}  ${v.title}: ${value} (target ${v.op} ${threshold})`;
}
