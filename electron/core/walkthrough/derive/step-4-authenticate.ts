/**
 * Step 4, authenticate: a 200 with a session_token for the active key; the last refusal
 * explained. `registered`: step 2 is done (a 401 before it means "register first").
 */
import { type DeriveContext, draft, type Draft, later, quote, serviceAnswer } from './shared';

/**
 * Derives step 4 from the walkthrough's authenticate exchanges since the reset.
 *
 * @example
 * const d = authenticateStep(ctx, register.state === 'done');
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function authenticateStep(ctx: DeriveContext, registered: boolean): Draft {
  const { facts, env, sandbox, active, exchanges } = ctx;
  const auths = exchanges.filter((e) => e.operation === 'authenticate');
  const last = auths[0] ?? null;
  const okActive = auths.find((e) => e.ok && active !== null && e.signing_kid === active.kid) ?? null;
  let d: Draft;
  if (last && !last.ok && (!okActive || later(last.at, okActive.at))) {
    d = draft('failed', `POST …/jwk/authenticate with kid ${quote(last.signing_kid ?? '?')} was refused.`, {
      reason: serviceAnswer(last),
      fix:
        last.response?.status === 401 && !registered
          ? `Register the JWK first: run step 2 (${
              sandbox
                ? 'the console registers the active key with the sandbox'
                : 'send it to the service’s onboarding, or register it with PUT …/jwk/{jwk_guid} signed by a key already registered'
            }), then authenticate again.`
          : (last.explanation ?? 'See the exchange on the Service page.'),
      at: last.at,
      event_ids: [last.id],
    });
  } else if (okActive) {
    d = draft(
      'done',
      `The service answered ${okActive.response?.status ?? 200} with a session_token for kid ${quote(okActive.signing_kid ?? '')}.`,
      { at: okActive.at, event_ids: [okActive.id] },
    );
    const report = facts.session?.exchange_id === okActive.id ? facts.session.report : null;
    if (report) {
      const passed = report.checks.filter((c) => c.status === 'passed').length;
      const failed = report.checks.filter((c) => c.status === 'failed').length;
      d.facts.push({
        label: 'session_token checks',
        value: `${passed} passed, ${failed} failed, ${report.checks.length - passed - failed} skipped`,
      });
    }
  } else if (last?.ok) {
    d = draft(
      'pending',
      `Authenticated with kid ${quote(last.signing_kid ?? '?')}; the active key is now ${quote(env.active_kid ?? '?')}: authenticate again.`,
      { at: last.at },
    );
  } else {
    d = draft('pending', 'Not checked with the service yet.');
  }
  d.action = 'Authenticate';
  return d;
}
