/**
 * Step 2, registration: the sandbox knows the active key; a real service gave a
 * counterparty_guid.
 */
import { type DeriveContext, draft, type Draft, quote } from './shared';

/** When a real environment's counterparty_guid was saved, as well as the records tell. */
function savedAt(ctx: DeriveContext): string | null {
  const attempt = ctx.facts.attempts.register;
  return attempt?.ok ? attempt.at : (ctx.env.created_at ?? null);
}

/**
 * Derives step 2 from the sandbox's counterparty, or the saved counterparty_guid.
 *
 * @example
 * const d = registerStep(ctx);
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function registerStep(ctx: DeriveContext): Draft {
  const { facts, env, sandbox, active } = ctx;
  let d: Draft;
  if (sandbox) {
    const cp = facts.sandbox?.counterparty ?? null;
    if (facts.sandbox?.error) {
      d = draft('failed', 'The sandbox is not available.', {
        reason: facts.sandbox.error,
        fix: 'Fix the sandbox (the Sandbox page says what is wrong), then run this step again.',
      });
    } else if (!env.counterparty_guid) {
      d = draft('pending', 'The bank is not onboarded with the sandbox yet.');
    } else if (!cp) {
      d = draft('failed', `Counterparty ${env.counterparty_guid} is unknown to the sandbox.`, {
        reason: `the sandbox has no counterparty ${env.counterparty_guid} (its state was reset or moved)`,
        fix: 'Run this step: it onboards the bank with the sandbox again.',
      });
    } else {
      const registered = active
        ? cp.jwks.find((j) => j.jwk.kid === active.kid && j.jwk.n === active.public_jwk.n)
        : undefined;
      if (registered) {
        d = draft(
          'done',
          `kid ${quote(registered.jwk.kid ?? '')} is registered for counterparty ${cp.counterparty_guid} (${registered.via === 'onboarding' ? 'at onboarding' : `with ${registered.via.toUpperCase()}`}).`,
          { at: registered.registered_at },
        );
        d.facts.push({ label: 'jwk_guid', value: registered.jwk_guid });
      } else {
        const kids = cp.jwks.map((j) => j.jwk.kid ?? '?').join(', ') || 'none';
        d = draft(
          'pending',
          active
            ? `The active key ${quote(active.kid)} is not registered for counterparty ${cp.counterparty_guid} (registered: ${kids}).`
            : 'No active key to register.',
          active
            ? {
                fix: 'Run this step: the console registers it with PUT …/jwk/{jwk_guid}, signed by a key already registered.',
              }
            : {},
        );
      }
    }
    d.action = 'Register with the sandbox';
  } else if (env.counterparty_guid) {
    d = draft(
      'done',
      `counterparty_guid ${env.counterparty_guid} saved: the service registered the JWK at onboarding.`,
      // Issue 26 item 5: the evidence pack's step 2 had no time. When this step saved the guid,
      // else when the environment was made (the guid was given on the Environments page).
      { at: savedAt(ctx) },
    );
    d.action = 'Save the counterparty_guid';
    d.action_input = 'counterparty_guid';
  } else {
    // Issue 26 item 3: the public URL comes first, then one block to send, then the guid back.
    const publicUrl = facts.reach?.public_url ?? null;
    d = draft(
      'waiting',
      publicUrl
        ? `Send the onboarding block below (public JWK, bank_auth_url ${publicUrl}, sender and receiver URLs, notification prefix) to the service team, then enter the counterparty_guid they answer.`
        : 'First the public URL the service will call (a tunnel, --public-url or your own front), then send the onboarding block below to the service team and enter the counterparty_guid they answer.',
      {
        waiting_for: 'the counterparty_guid the service’s onboarding answers for this JWK',
        action: 'Save the counterparty_guid',
        action_input: 'counterparty_guid',
      },
    );
  }
  if (env.counterparty_guid) d.facts.unshift({ label: 'counterparty_guid', value: env.counterparty_guid });
  return d;
}
