/**
 * The `valid` case of a route (spec 2.5, 2.6, 4.2, 8): a valid X-Session-ID must be answered 200
 * with the route's JSON members, judged by the one answer judge (DESIGN.md "One judge of the
 * bank's answer"): the same verdict the bank endpoints, forward mode and the sandbox give.
 */
import { answerOfExchange, judgeAnswer, type AnswerVerdict } from '../../answer';
import type { ExchangeResult } from '../../http';
import type { PlannedCase, RouteName } from '../plan';
import {
  fetchedThisRun,
  fetchesSince,
  finishCase,
  trustHint,
  validToken,
  waitForRefresh,
  type RunState,
} from '../run-state';
import { answered, quote, send } from '../send';

/** What a route must answer a valid token with, for a failure's detail. */
export function expectedValid(route: RouteName): string {
  if (route === 'user_auth')
    return '200 with JSON {external_id, phone, key, first_name?, last_name?, email?}';
  if (route === 'key') return '200 with JSON {key}';
  return '200 with JSON {external_id}';
}

/** A passing answer in a line: its time, the members judged, and the judge's warnings. */
export function passedSummary(result: ExchangeResult, verdict: AnswerVerdict): string {
  const members = verdict.checks
    .filter((c) => !['reachable', 'budget', 'status', 'json'].includes(c.id))
    .map((c) => c.detail);
  const notes = verdict.warnings.length > 0 ? `; note: ${verdict.warnings.join('; ')}` : '';
  return `200 in ${Math.round(result.durationMs)} ms, a JSON object: ${members.join(', ')}${notes}`;
}

/**
 * Runs a `valid` case. A bank that loaded this JWKS URL's keys in an earlier run may hold its
 * kid refresh back (rate limit): when the run's first call got 401 and the bank never came for
 * the keys, it waits once and tries again.
 */
export async function runValidCase(state: RunState, c: PlannedCase, started: number): Promise<void> {
  const { first, refreshWaitMs } = state.runner;
  const label = 'valid token';
  let sent = await send(state, c.route, validToken(state), label);
  const exchanges = [sent.record];
  let retried = '';
  if (
    state.results.length === 0 &&
    refreshWaitMs > 0 &&
    answered(sent.result, 401) &&
    !fetchedThisRun(state)
  ) {
    await waitForRefresh(
      state,
      c,
      `/${c.route} answered 401 and the bank has not fetched ${state.runner.jwks.url}`,
    );
    sent = await send(state, c.route, validToken(state), `${label}, again after ${refreshWaitMs} ms`);
    exchanges.push(sent.record);
    retried = ` (the first call got 401 without the bank fetching the JWKS; retried after ${Math.round(refreshWaitMs / 1000)} s)`;
  }
  const verdict = judgeAnswer({
    route: `/${c.route}`,
    answer: answerOfExchange(sent.result),
    token: { passed: true },
  });
  // Accepted (200), even with a wrong body: the negative cases on this route mean something.
  if (answered(sent.result, 200)) state.accepted.add(c.route);
  const what = `sent a valid X-Session-ID (RS256, kid ${first.kid}, flow sign-in, obj ${JSON.stringify(state.obj)}, sub ${JSON.stringify(state.sub)})${retried}`;
  const unauthorized = answered(sent.result, 401)
    ? ` (${trustHint(state)} The bank fetched the JWKS ${fetchesSince(state, state.startedAt)} time(s) in this run)`
    : '';
  finishCase(state, c, started, {
    status: verdict.ok ? 'passed' : 'failed',
    failed_check: verdict.failed,
    detail: verdict.ok
      ? `${what}; got ${passedSummary(sent.result, verdict)}`
      : `${what}; got ${quote(sent.result)}; expected ${expectedValid(c.route)}: ${verdict.failed} failed: ${verdict.detail}${unauthorized}`,
    exchanges,
  });
}
