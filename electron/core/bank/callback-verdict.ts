/**
 * A callback's one verdict (DESIGN.md "One judge of the bank's answer"; issue 24): the token
 * checks' verdict (verify.ts) and the answer judge's (core/answer) on what was answered, whoever
 * answered it. The console's own bank is judged like any bank: a behaviour that leaves `phone`
 * out makes its callback fail `phone` on every page, in `events --json` and in the walkthrough,
 * while the answer itself stays what the behaviour says. In forward mode the engineer's backend's
 * answer is judged (and its checks kept as the forward verdicts).
 *
 * Called when the event is built, after the answer is written (bank.ts), so judging costs the
 * answer nothing; the own bank's reply is judged as the object it sent (no JSON parse) and lean
 * (no words for passed checks: they are rebuilt when the event is read, callback-detail.ts).
 */
import type { Check } from '../../contract/schemas/inspector';
import { answerOfExchange, judgeAnswer, type Answer, type AnswerRoute } from '../answer';
import type { ForwardOutcome } from './forward';
import type { Verdict } from './verify';
import type { Reply } from '../http';

export interface JudgedCallback {
  /** The event's failed_check: the token's first failure, else the answer's. */
  failed: string | null;
  /** Its words, kept with the event (recordVerdict). */
  detail: string | null;
  /** The token's warning and the answer judge's, in one line; null when none. */
  warning: string | null;
  /** Forward mode: the judge's checks on the backend's answer; null otherwise. */
  forwardVerdicts: Check[] | null;
}

/** What the bank sent: its status, headers, text, and the object the text is the JSON of. */
export type SentReply = Pick<Reply, 'status' | 'headers' | 'text' | 'value'>;

/**
 * Judges a callback the bank endpoints answered: `durationMs` is arrival to answer written, the
 * time the service saw (forward mode included: the backend's answer reached it through us).
 *
 * @example
 * const j = judgeCallback({ route: '/user_auth', verdict, reply, forward: null, durationMs: 3 });
 * event.failed_check = j.failed;
 */
export function judgeCallback(input: {
  route: AnswerRoute;
  verdict: Verdict;
  reply: SentReply;
  forward: ForwardOutcome | null;
  durationMs: number;
}): JudgedCallback {
  const { verdict, reply, forward, durationMs } = input;
  const answer: Answer = forward
    ? answerOfExchange(forward.result, durationMs)
    : {
        arrived: true,
        status: reply.status,
        durationMs,
        contentType: reply.headers['Content-Type'] ?? null,
        body: reply.text,
        value: reply.value,
      };
  const judged = judgeAnswer({
    route: input.route,
    answer,
    token: verdict.ok
      ? { passed: true }
      : { passed: false, failed: verdict.failed ?? 'present', detail: verdict.detail },
    // Forward verdicts are kept whole (they are what the Bank page shows of the backend).
    lean: forward === null,
  });
  const warnings = verdict.warning ? [verdict.warning, ...judged.warnings] : judged.warnings;
  return {
    failed: judged.failed,
    detail: judged.detail,
    warning: warnings.length > 0 ? warnings.join('; ') : null,
    forwardVerdicts: forward ? judged.checks : null,
  };
}
