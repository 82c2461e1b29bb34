/**
 * The walkthrough's state as the contract answers it (`walkthrough.state`, and after every action
 * and reset): the environment, the facts gathered now, the eight derived steps, and the request
 * step 4 sends, built from the one composed JWT.
 */
import type { Environment } from '../../contract/schemas/service';
import type { WalkthroughState } from '../../contract/schemas/walkthrough';
import type { CoreDeps } from '../core-types';
import { authenticateUrl } from '../service';
import { deriveSteps } from './derive';
import { gatherFacts, type GatheredFacts } from './facts';
import { onboardingOf } from './onboarding';
import type { ProgressStore } from './progress';

/** A state and the facts it was derived from (the evidence pack needs both). */
export interface DerivedState {
  state: WalkthroughState;
  facts: GatheredFacts;
}

/** The authenticate request step 4 sends, once a JWT is composed and the service is known. */
function authenticateRequest(
  env: Environment,
  facts: GatheredFacts,
): WalkthroughState['authenticate_request'] {
  if (!facts.composed || !env.base_url || !env.counterparty_guid) return null;
  return {
    method: 'POST',
    url: authenticateUrl({ base: env.base_url, guid: env.counterparty_guid }),
    headers: { 'CX-Authorization': facts.composed.token },
    body: null,
  };
}

/**
 * Gathers the facts of `env` and derives its state now (`now` is read as the steps are derived).
 *
 * @example
 * const { state } = await deriveState(deps, progress, env, Date.now);
 * state.done; // steps proven so far
 */
export async function deriveState(
  deps: CoreDeps,
  progress: ProgressStore,
  env: Environment,
  now: () => number,
): Promise<DerivedState> {
  const facts = await gatherFacts(deps, env, await progress.read(env.id));
  const steps = deriveSteps(facts, now());
  const session = facts.progress.session;
  const state: WalkthroughState = {
    environment: {
      id: env.id,
      name: env.name,
      kind: env.kind,
      base_url: env.base_url,
      counterparty_guid: env.counterparty_guid,
      active_kid: env.active_kid,
    },
    reset_at: facts.resetAt,
    bank_url: facts.bankUrl,
    reach: facts.reach,
    onboarding: onboardingOf(facts),
    rehearsal:
      facts.rehearsal &&
      (facts.resetAt === null || Date.parse(facts.rehearsal.at) >= Date.parse(facts.resetAt))
        ? facts.rehearsal
        : null,
    obj: facts.obj,
    sub: facts.sub,
    composed: facts.composed,
    session: session
      ? { exchange_id: session.exchange_id, token: session.token, report: session.report }
      : null,
    authenticate_request: authenticateRequest(env, facts),
    steps,
    done: steps.filter((s) => s.state === 'done').length,
    total: steps.length,
    derived_at: new Date(now()).toISOString(),
  };
  return { state, facts };
}
