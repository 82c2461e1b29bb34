/**
 * Case execution: one module per case kind of the plan (plan.ts), and here what every kind
 * shares: the activity line told as a case begins, the most it may take, and the dispatch.
 */
import type { PlannedCase } from '../plan';
import { fetchedThisRun, tell, type RunState } from '../run-state';
import { BUDGET_MS, runBudgetCase } from './budget';
import { runNegativeCase } from './negative';
import { runRotationCase } from './rotation';
import { runValidCase } from './valid';

export { BUDGET_MS, percentile } from './budget';

/** What a case does, in a line, as it begins (the page shows it beside a countdown). */
export function caseText(state: RunState, c: PlannedCase): string {
  const { first, jwks, budgetCalls } = state.runner;
  switch (c.kind) {
    case 'valid': {
      const hint = fetchedThisRun(state)
        ? ''
        : `; to verify it the bank must fetch the runner's JWKS at ${jwks.url} (not fetched yet in this run)`;
      return `GET /${c.route} with a valid token (kid ${first.kid})${hint}`;
    }
    case 'budget':
      return `GET /${c.route} ${budgetCalls} times with valid tokens, each to be answered within ${BUDGET_MS} ms`;
    case 'rotation':
      return `publishing a new key beside kid ${first.kid} at ${jwks.url}, then GET /${c.route} with a token signed by it: the bank must fetch the JWKS again`;
    case 'negative':
      return c.title;
  }
}

/**
 * The most a case can take: each request given up at `giveUpMs`, and for a case that may wait
 * for a rate-limited JWKS refresh, that wait and one more request.
 */
export function caseTimeoutMs(state: RunState, c: PlannedCase): number {
  const { budgetCalls, giveUpMs, refreshWaitMs } = state.runner;
  const requests = c.kind === 'budget' ? budgetCalls : 1;
  const retry = (c.kind === 'valid' || c.kind === 'rotation') && refreshWaitMs > 0;
  return requests * giveUpMs + (retry ? refreshWaitMs + giveUpMs : 0);
}

/**
 * Runs one planned case against the bank: tells the hooks it begins, then the case kind's
 * module records its result on the state.
 *
 * @example
 * for (const c of plan) await runCase(state, c);
 */
export async function runCase(state: RunState, c: PlannedCase): Promise<void> {
  const started = performance.now();
  tell(state, {
    kind: 'case',
    case_id: c.id,
    text: caseText(state, c),
    timeout_ms: caseTimeoutMs(state, c),
    until: null,
  });
  switch (c.kind) {
    case 'valid':
      return runValidCase(state, c, started);
    case 'budget':
      return runBudgetCase(state, c, started);
    case 'rotation':
      return runRotationCase(state, c, started);
    case 'negative':
      return runNegativeCase(state, c, c.negative, started);
  }
}
