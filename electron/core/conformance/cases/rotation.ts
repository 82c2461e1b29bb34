/**
 * The `rotation` case (spec 4.1 #3, 5.3, 5.5): after the service publishes a new key beside the
 * old one, a token with the new kid must be accepted, so the bank must fetch the JWKS again for
 * an unknown kid. Run only where a valid token was accepted (else a refusal proves nothing).
 */
import { generateRunnerKey } from '../keys';
import type { PlannedCase } from '../plan';
import { fetchesSince, finishCase, validToken, waitForRefresh, type RunState } from '../run-state';
import { answered, quote, send } from '../send';

/** Runs the `rotation` case; the new key stays published for the rest of the runner's life. */
export async function runRotationCase(state: RunState, c: PlannedCase, started: number): Promise<void> {
  const { first, jwks, published, refreshWaitMs, now } = state.runner;
  if (!state.accepted.has(c.route)) {
    finishCase(state, c, started, {
      status: 'skipped',
      detail: `not run: /${c.route} did not answer a valid token signed with the first key with 200 (see ${c.route}.valid), so the rotation cannot be judged`,
      exchanges: [],
    });
    return;
  }
  const rotated = await generateRunnerKey();
  published.push(rotated);
  const rotatedAt = now();
  const what = `published a new key (kid ${rotated.kid}) beside the old one (kid ${first.kid}) in the JWKS at ${jwks.url}, then sent a valid token signed with the new key`;
  let sent = await send(state, c.route, validToken(state, rotated), 'token signed with the new key');
  const exchanges = [sent.record];
  let waited = '';
  if (refreshWaitMs > 0 && !answered(sent.result, 200)) {
    // A careful bank rate-limits refreshes for unknown kids: give it that long, once.
    const firstAnswer = quote(sent.result);
    await waitForRefresh(state, c, `/${c.route} answered ${firstAnswer} to the new key's token`);
    sent = await send(
      state,
      c.route,
      validToken(state, rotated),
      `token signed with the new key, again after ${refreshWaitMs} ms`,
    );
    exchanges.push(sent.record);
    waited = ` (the first answer was ${firstAnswer}, so it was sent again after ${Math.round(refreshWaitMs / 1000)} s: a bank may rate-limit JWKS refreshes)`;
  }
  const fetched = fetchesSince(state, rotatedAt);
  const ok = answered(sent.result, 200);
  const why =
    fetched === 0
      ? ': it caches the service JWKS and never fetches it again for an unknown kid, so it will refuse every callback after the service rotates its key'
      : ', yet refused the new key';
  finishCase(state, c, started, {
    status: ok ? 'passed' : 'failed',
    detail: ok
      ? `${what}; got ${quote(sent.result)}${waited}; the bank fetched the JWKS ${fetched} time(s) after the rotation`
      : `${what}; got ${quote(sent.result)}${waited}; expected 200: the bank fetched the JWKS ${fetched} time(s) after the rotation${why}`,
    exchanges,
  });
}
