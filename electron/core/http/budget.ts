/**
 * The callback budget (spec 4.2, 8): the service treats an answer that takes longer than 1 second
 * as a failure, whatever it says. One rule, one place (issue 13 item 2): the answer judge
 * (core/answer/judge.ts, check `budget`) asks this module for every answer it judges (the bank
 * endpoints' own, forward mode's, the sandbox's sign-in, the conformance runner's), and the
 * walkthrough reads its verdict, so no page can call "passed" what another calls "failed".
 */

import { CALLBACK_BUDGET_MS } from '../../contract/schemas/inspector';

/**
 * The budget (in the contract, so the pages draw it at the same line) and the failed_check a
 * callback carries when every token check passed but the answer was late.
 */
export { BUDGET_CHECK_ID, CALLBACK_BUDGET_MS } from '../../contract/schemas/inspector';

/** True when an answer that took `ms` milliseconds is over the budget (exactly 1000 ms is within). */
export function overBudget(ms: number): boolean {
  return ms > CALLBACK_BUDGET_MS;
}

/**
 * The words for an answer's timing against the budget, the same on every page.
 *
 * @example
 * budgetDetail(1503); // 'answered in 1,503 ms: over the 1 s budget (spec 4.2, 8); the service treats a late answer as a failure, whatever it says'
 */
export function budgetDetail(ms: number): string {
  // Grouped by hand, not toLocaleString: the same words whatever ICU the runtime carries.
  const rounded = String(Math.round(ms)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return overBudget(ms)
    ? `answered in ${rounded} ms: over the 1 s budget (spec 4.2, 8); the service treats a late answer as a failure, whatever it says`
    : `answered in ${rounded} ms, within the 1 s budget (spec 4.2, 8)`;
}
