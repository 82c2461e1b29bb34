/**
 * A negative case (spec 4.2, 5.5, 7): a deliberately bad X-Session-ID must be answered 401.
 * Run only where a valid token was accepted, so a 401 means the check and not a closed door;
 * the bad token is first put through the service's own rules, so a case that proves nothing (a
 * runner bug) fails as the runner's fault, never the bank's.
 */
import type { ExchangeResult } from '../../http';
import { badToken, type BadToken } from '../bad-tokens';
import type { NegativeKind, PlannedCase } from '../plan';
import { expectationOf, finishCase, nowSeconds, type RunState } from '../run-state';
import { answered, quote, send } from '../send';

/** Why an answer other than 401 is wrong: accepted, or another refusal status. */
export function notRefusedWhy(result: ExchangeResult, bad: Pick<BadToken, 'accepted'>): string {
  if (!result.ok) return '';
  if (result.status >= 200 && result.status < 300) return `: the bank accepted ${bad.accepted}`;
  return `: spec 4.2 / 7 expect 401 Unauthorized when a check fails, not ${result.status}`;
}

/** Runs a negative case of kind `negative` on the case's route. */
export async function runNegativeCase(
  state: RunState,
  c: PlannedCase,
  negative: NegativeKind,
  started: number,
): Promise<void> {
  if (!state.accepted.has(c.route)) {
    finishCase(state, c, started, {
      status: 'skipped',
      detail: `not run: /${c.route} did not answer a valid token with 200 (see ${c.route}.valid), so a 401 here would prove nothing`,
      exchanges: [],
    });
    return;
  }
  const { first, stranger } = state.runner;
  const bad = badToken(negative, {
    obj: state.obj,
    sub: state.sub,
    first,
    stranger,
    nowS: nowSeconds(state),
  });
  const expected = await expectationOf(state, bad.token);
  if (expected.ok) {
    finishCase(state, c, started, {
      status: 'failed',
      detail: `internal error: the runner's ${bad.label} token passes the verification engine, so this case proves nothing`,
      exchanges: [],
    });
    return;
  }
  const sent = await send(state, c.route, bad.token, bad.label);
  const ok = answered(sent.result, 401);
  const rule = `the rules refuse it at ${expected.failed}: ${expected.detail}`;
  finishCase(state, c, started, {
    status: ok ? 'passed' : 'failed',
    detail: `sent ${bad.sent} (${rule}); got ${quote(sent.result)}${ok ? ' as expected' : `; expected 401${notRefusedWhy(sent.result, bad)}`}`,
    exchanges: [sent.record],
  });
}
