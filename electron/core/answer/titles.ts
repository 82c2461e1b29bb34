/**
 * The answer checks' titles: neutral labels, the same on every page. A check's detail says what
 * was found; a failure's detail says what failed ("phone missing"), so no title is a promise
 * ("phone present") that a failed line would contradict.
 */
import type { AnswerCheckId, Check, CheckStatus } from '../../contract/schemas/inspector';

export type { AnswerCheckId };

export const ANSWER_TITLES: Record<AnswerCheckId, string> = {
  reachable: 'Answer arrived',
  budget: 'Time (1 s budget)',
  status: 'HTTP status',
  json: 'JSON body',
  external_id: 'external_id',
  external_id_length: 'external_id length (500)',
  key: 'key',
  phone: 'phone',
  fields: 'first_name, last_name, email',
};

/** One answer check, with its title. */
export function answerCheck(id: AnswerCheckId, status: CheckStatus, detail: string): Check {
  return { id, title: ANSWER_TITLES[id], status, detail };
}
