/**
 * Step 6, the sign-in: a GET /user_auth that passed every check: the event's one verdict,
 * failed_check, the token's and the answer judge's on what was answered (the console's own
 * answer or the forward target's, issue 24). forward_ok covers events stored before the answer
 * judge. `reachable`: step 5 is done (a real service cannot call before).
 */
import { CHECK_FIXES, TRACE_FIXES, UNREACHED } from './fixes';
import { type DeriveContext, draft, type Draft, later, quote, traceEnd, traceFailure } from './shared';

/**
 * Derives step 6 from the walkthrough's /user_auth callbacks and sign-in traces since the reset.
 *
 * @example
 * const d = signInStep(ctx, callbacks.state === 'done');
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function signInStep(ctx: DeriveContext, reachable: boolean): Draft {
  const { facts, sandbox, since } = ctx;
  const cbs = facts.callbacks.filter((c) => since(c.at));
  const passed =
    cbs.find((c) => c.status === 200 && c.failed_check === null && c.forward_ok !== false) ?? null;
  const failedCb =
    cbs.find((c) => !(c.status === 200 && c.failed_check === null && c.forward_ok !== false)) ?? null;
  const failedTrace = facts.traces.find((t) => t.kind === 'sign-in' && since(t.at) && !t.ok) ?? null;
  const lastTrace = facts.traces.find((t) => t.kind === 'sign-in' && since(t.at)) ?? null;
  let d: Draft;
  if (failedTrace && failedTrace === lastTrace && later(traceEnd(failedTrace), passed?.at)) {
    const f = traceFailure(failedTrace);
    d = draft('failed', `The sign-in stopped at ${f.id}.`, {
      reason: f.detail,
      fix: TRACE_FIXES[f.id] ?? 'See the trace on the Sandbox page.',
      at: failedTrace.at,
      event_ids: failedCb && later(failedCb.at, passed?.at) ? [failedCb.id] : [],
    });
  } else if (failedCb && later(failedCb.at, passed?.at)) {
    const check = failedCb.failed_check;
    d = draft('failed', `GET /user_auth answered ${failedCb.status ?? '?'}.`, {
      reason: check
        ? `check ${check} failed${failedCb.detail ? `: ${failedCb.detail}` : ''}`
        : (failedCb.detail ?? `the answer was ${failedCb.status ?? 'missing'}`),
      fix: (check && CHECK_FIXES[check]) ?? 'See the callback on the Callbacks page.',
      at: failedCb.at,
      event_ids: [failedCb.id],
    });
  } else if (passed) {
    d = draft(
      'done',
      `The service called GET /user_auth with X-Session-ID; every check passed and the bank answered 200${passed.duration_ms !== null ? ` in ${Math.round(passed.duration_ms)} ms` : ''}.`,
      { at: passed.at, event_ids: [passed.id] },
    );
    d.facts.push({ label: 'obj', value: passed.obj ?? '' }, { label: 'sub', value: passed.sub ?? '' });
  } else if (sandbox) {
    d = draft('pending', 'No sign-in yet.');
  } else if (!reachable) {
    d = draft('pending', UNREACHED);
  } else {
    // Issue 26 item 3: who starts it, so the newcomer does not wait for something nobody began.
    d = draft(
      'waiting',
      `Waiting for the service team to start a sign-in on their side; the service then calls GET ${facts.bankUrl ?? '{bank_auth_url}'}/user_auth.`,
      {
        waiting_for: `the service team to start a sign-in (send them the message below), then the service calling GET /user_auth with X-Session-ID for obj ${quote(facts.obj)} (spec 4.4 #5–7)`,
      },
    );
  }
  if (facts.outside && facts.outside.callbacks + (sandbox ? facts.outside.traces : 0) > 0) {
    d.facts.push({
      label: 'other traffic',
      value: `${facts.outside.callbacks} other /user_auth callback(s)${sandbox ? ` and ${facts.outside.traces} other sandbox trace(s)` : ''} since the reset: shown on the Callbacks and Sandbox pages, not the walkthrough's, so they do not decide this step`,
    });
  }
  d.action = sandbox ? 'Run the sign-in' : 'Check again';
  return d;
}
