/**
 * The walkthrough's state, derived from facts (issue 6: "state from real events, never from
 * checkboxes"). A pure function: the handlers gather the facts (the key store, the service's
 * exchange history, the sandbox, the event store, the walkthrough's own small file) and this
 * decides, for each step, whether the event that proves it exists (done), its last attempt
 * failed (failed, with the reason and the fix), nothing happened yet (pending), or the console
 * waits for the service (waiting). A reset ignores every event before it.
 *
 * One function per step (derive/step-N-*.ts), each a pure function of the facts; what they share
 * (the draft, the context, the words) is in derive/shared.ts and their fixes in derive/fixes.ts.
 */
import {
  WALKTHROUGH_STEP_IDS,
  type StepFact,
  type StepId,
  type WalkthroughStep,
} from '../../contract/schemas/walkthrough';
import type { WalkthroughFacts } from './fact-types';
import { deriveContext, later, type DeriveContext, type Draft } from './derive/shared';
import { keyStep } from './derive/step-1-key';
import { registerStep } from './derive/step-2-register';
import { composeStep } from './derive/step-3-compose';
import { authenticateStep } from './derive/step-4-authenticate';
import { callbacksStep } from './derive/step-5-callbacks';
import { signInStep } from './derive/step-6-sign-in';
import { notificationsStep } from './derive/step-7-notifications';
import { rotateStep } from './derive/step-8-rotate';
import { serviceRequest } from './onboarding';
import { STEP_TEXT } from './steps';

export {
  NOTIFY_ROUTES,
  type Attempt,
  type CallbackFact,
  type NotificationFact,
  type NotifyRoute,
  type WalkthroughFacts,
} from './fact-types';
export { serviceAnswer } from './derive/shared';

/** Each step's draft from the context; steps 4, 6 and 7 read an earlier step's own state. */
function draftSteps(ctx: DeriveContext): Record<StepId, Draft> {
  const register = registerStep(ctx);
  const callbacks = callbacksStep(ctx);
  const reachable = callbacks.state === 'done';
  return {
    key: keyStep(ctx),
    register,
    compose: composeStep(ctx),
    authenticate: authenticateStep(ctx, register.state === 'done'),
    callbacks,
    'sign-in': signInStep(ctx, reachable),
    notifications: notificationsStep(ctx, reachable),
    rotate: rotateStep(ctx),
  };
}

/**
 * A failed action that left no event behind (a locked vault, a missing counterparty_guid) is
 * the step's latest word until something newer proves the step.
 */
export function applyFailedAttempt(ctx: DeriveContext, id: StepId, d: Draft): void {
  const attempt = ctx.facts.attempts[id];
  if (attempt && !attempt.ok && ctx.since(attempt.at) && d.state !== 'failed' && later(attempt.at, d.at)) {
    Object.assign(d, {
      state: 'failed',
      summary: 'The last attempt failed.',
      reason: attempt.reason,
      fix: attempt.fix,
      at: attempt.at,
    });
  }
}

/**
 * Derives the eight steps from the facts. `nowMs` only words expiry ("in 364 days").
 *
 * @example
 * const steps = deriveSteps(facts, Date.now());
 * steps.find((s) => s.id === 'authenticate')?.state; // 'failed'
 */
export function deriveSteps(facts: WalkthroughFacts, nowMs: number): WalkthroughStep[] {
  void nowMs;
  const ctx = deriveContext(facts);
  const drafts = draftSteps(ctx);
  for (const id of WALKTHROUGH_STEP_IDS) applyFailedAttempt(ctx, id, drafts[id]);
  return WALKTHROUGH_STEP_IDS.map((id) => {
    const text = STEP_TEXT[id];
    const d = drafts[id];
    const needs = d.state === 'done' ? null : (text.needs.find((n) => drafts[n].state !== 'done') ?? null);
    // Steps 6 and 7 of a real environment are the service team's to start (issue 26 item 3).
    const request = serviceRequest(facts, id);
    if (request) d.service_request = request;
    return {
      id,
      number: text.number,
      title: text.title,
      explanation: text.explanation,
      spec: text.spec,
      needs,
      ...d,
    };
  });
}

/** A fact list entry, for callers that add their own. */
export const fact = (label: string, value: string): StepFact => ({ label, value });
