/**
 * Forward mode: the console sits between the service and the engineer's own backend. Each
 * callback (same method, path and X-Session-ID) and notification (same body) is passed to
 * `${forward.url}${path}`, and the backend's answer is returned to the service as it is. It is
 * judged by the one answer judge (core/answer: DESIGN.md "One judge of the bank's answer") when
 * the callback's event is recorded (bank/callback-verdict.ts): 200 with the route's members for a
 * token that passes, 401 for one that fails, within the 1 s budget.
 */
import type { Check } from '../../contract/schemas/inspector';
import { errorReply, exchange, type ExchangeResult, recordedText, type Reply } from '../http';
export { CALLBACK_BUDGET_MS } from '../http';

/** How long the console waits for the backend at all (the verdict flags anything over budget). */
export const FORWARD_GIVE_UP_MS = 10_000;

export interface ForwardOutcome {
  url: string;
  result: ExchangeResult;
  /** The answer judge's checks on the backend's answer, filled in when the event is recorded. */
  verdicts: Check[];
}

/** Passes a request on to the backend and waits for its whole answer (never throws). */
export async function forwardRequest(input: {
  base: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}): Promise<ForwardOutcome> {
  const url = `${input.base.replace(/\/+$/, '')}${input.path}`;
  const result = await exchange({
    method: input.method,
    url,
    headers: input.headers,
    body: input.body,
    giveUpMs: FORWARD_GIVE_UP_MS,
  });
  return { url, result, verdicts: [] };
}

/**
 * A backend's answer, passed on to the service as it is; a `key` in a JSON body is masked in the
 * record (http/reply.ts recordedText).
 *
 * @example
 * sendReply(res, passThrough(await forwardRequest({ base, path: '/key', method: 'GET', headers })));
 */
export function passThrough(outcome: ForwardOutcome): Reply {
  const r = outcome.result;
  if (!r.ok) {
    return errorReply(502, 'forward_failed', `the backend at ${outcome.url} did not answer: ${r.message}`);
  }
  const text = r.body.toString('utf8');
  // Recorded whole: the event store bounds bodies (64 KiB) and keeps the size (http/bounds.ts).
  const recorded = recordedText(text);
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (r.headers['content-type']) headers['Content-Type'] = r.headers['content-type'];
  return { status: r.status, headers, text, recorded: () => recorded };
}
