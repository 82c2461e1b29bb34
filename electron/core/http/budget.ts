/**
 * The callback budget (spec 4.2, 8): the service treats an answer that takes longer than 1 second
 * as a failure, whatever it says. One rule, one place (issue 13 item 2): the bank endpoints'
 * verdict on a callback (failed_check `budget`), the forward verdict on a backend's answer, the
 * sandbox's sign-in `deadline` step and the walkthrough all ask this module, so no page can call
 * "passed" what another calls "failed".
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
 * budgetDetail(1503); // 'answered in 1503 ms: over the 1 s budget (spec 4.2, 8); the service treats a late answer as a failure, whatever it says'
 */
export function budgetDetail(ms: number): string {
  const rounded = Math.round(ms);
  return overBudget(ms)
    ? `answered in ${rounded} ms: over the 1 s budget (spec 4.2, 8); the service treats a late answer as a failure, whatever it says`
    : `answered in ${rounded} ms, within the 1 s budget (spec 4.2, 8)`;
}
