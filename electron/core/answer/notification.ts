/**
 * A bank's answer to a notification (spec 4.3: 200, no body), as forward mode judges the
 * engineer's backend: an answer arrived, within the 1 s budget, status 200. The same checks,
 * ids and words as a callback's answer (judge.ts); a notification has no token and no body rules.
 */
import type { Check } from '../../contract/schemas/inspector';
import type { Answer } from './judge';
import { answerCheck } from './titles';
import { budgetDetail, overBudget } from '../http';

/**
 * @example
 * judgeNotificationAnswer({ arrived: true, status: 200, durationMs: 8, contentType: null, body: null });
 * // [reachable passed, budget passed, status passed]
 */
export function judgeNotificationAnswer(answer: Answer): Check[] {
  if (!answer.arrived) {
    return [
      answerCheck('reachable', 'failed', `no answer: ${answer.why}`),
      answerCheck('budget', 'skipped', 'not judged: no answer arrived'),
      answerCheck('status', 'skipped', 'not judged: no answer arrived'),
    ];
  }
  const s = answer.status;
  return [
    answerCheck('reachable', 'passed', `an HTTP answer arrived (${s})`),
    answerCheck(
      'budget',
      overBudget(answer.durationMs) ? 'failed' : 'passed',
      budgetDetail(answer.durationMs),
    ),
    s === 200
      ? answerCheck('status', 'passed', 'answered 200')
      : answerCheck('status', 'failed', `answered ${s}, not 200 (spec 4.3)`),
  ];
}
