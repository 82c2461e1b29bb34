/**
 * The `budget` case of a route (spec 4.2, 8): every one of N valid calls, one after another on
 * new connections, answered 200 within 1 second (the one rule: http/budget.ts).
 */
import type { CaseExchange } from '../../../contract/schemas/conformance';
import { CALLBACK_BUDGET_MS, overBudget, type ExchangeResult } from '../../http';
import type { PlannedCase } from '../plan';
import { finishCase, round, validToken, type RunState } from '../run-state';
import { answered, quote, send } from '../send';

/** Spec 4.2 / 8: each callback must answer within 1 second (the one rule: http/budget.ts). */
export const BUDGET_MS = CALLBACK_BUDGET_MS;

/** Nearest-rank percentile of sorted values (0 for none). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The budget case's metrics over the calls' durations (ms, in call order). */
export function budgetMetrics(durations: number[]) {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    count: durations.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted[sorted.length - 1] ?? 0),
    budget_ms: BUDGET_MS,
  };
}

/** A call that went wrong: refused (no 200) or late (a 200 at or over the budget). */
interface Refused {
  call: number;
  result: ExchangeResult;
}
interface Late {
  call: number;
  ms: number;
}

/** What went wrong in words: the slowest late call named, the first refused one quoted. */
export function budgetFaults(calls: number, late: Late[], refused: Refused[]): string[] {
  const faults: string[] = [];
  if (late.length > 0) {
    const slowest = late.reduce((a, b) => (b.ms > a.ms ? b : a));
    faults.push(
      `${late.length} of ${calls} took ${BUDGET_MS} ms or more (slowest: call ${slowest.call}, ${Math.round(slowest.ms)} ms)`,
    );
  }
  if (refused.length > 0) {
    const first = refused[0]!;
    faults.push(
      `${refused.length} of ${calls} did not answer 200 (call ${first.call}: ${first.result.ok ? 'got ' : ''}${quote(first.result)})`,
    );
  }
  return faults;
}

/** Runs a `budget` case: `budgetCalls` valid calls, each to be answered 200 within the budget. */
export async function runBudgetCase(state: RunState, c: PlannedCase, started: number): Promise<void> {
  const calls = state.runner.budgetCalls;
  const exchanges: CaseExchange[] = [];
  const durations: number[] = [];
  const refused: Refused[] = [];
  const late: Late[] = [];
  for (let i = 1; i <= calls; i++) {
    const sent = await send(state, c.route, validToken(state), `call ${i} of ${calls}`);
    exchanges.push(sent.record);
    durations.push(sent.result.durationMs);
    if (!answered(sent.result, 200)) refused.push({ call: i, result: sent.result });
    else if (overBudget(sent.result.durationMs)) late.push({ call: i, ms: sent.result.durationMs });
  }
  const metrics = budgetMetrics(durations);
  const stats = `p50 ${Math.round(metrics.p50_ms)} ms, p95 ${Math.round(metrics.p95_ms)} ms, max ${Math.round(metrics.max_ms)} ms`;
  const faults = budgetFaults(calls, late, refused);
  const sentWhat = `sent ${calls} valid tokens one after another, each on a new connection`;
  finishCase(state, c, started, {
    status: faults.length === 0 ? 'passed' : 'failed',
    detail:
      faults.length === 0
        ? `${sentWhat}; all answered 200 within ${BUDGET_MS} ms: ${stats}`
        : `${sentWhat}; expected every one answered 200 within ${BUDGET_MS} ms (spec 4.2, 8), but ${faults.join(', and ')}; ${stats}`,
    exchanges,
    metrics,
  });
}
