/**
 * Step 1, the key: a stored key, active for this environment. A fact of the profile: a reset
 * keeps it.
 */
import { type DeriveContext, draft, type Draft, quote } from './shared';

/**
 * Derives step 1 from the key store and the active kid.
 *
 * @example
 * const d = keyStep(ctx);
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function keyStep(ctx: DeriveContext): Draft {
  const { facts, env, active } = ctx;
  let d: Draft;
  if (facts.keysError) {
    d = draft('failed', 'The key store cannot be read.', {
      reason: facts.keysError,
      fix: 'Unlock or set up the vault (the banner at the top says how), then run this step again.',
    });
  } else if (env.active_kid && !active) {
    d = draft('failed', `The active key ${quote(env.active_kid)} is not in the key store.`, {
      reason: `kid ${quote(env.active_kid)} is this environment's active_kid, but no such key is stored`,
      fix: 'Create a key with this step (it becomes the active key), or set active_kid on the Environments page.',
    });
  } else if (active && active.expires_in_days !== null && active.expires_in_days < 0) {
    d = draft('failed', `kid ${quote(active.kid)} expired on ${active.expires}.`, {
      reason: `the active key expired on ${active.expires}: it no longer signs`,
      fix: 'Create a new key with this step and register it (step 2).',
      at: active.created_at,
    });
  } else if (active) {
    d = draft(
      'done',
      `kid ${quote(active.kid)} (${active.alg}, ${active.bits} bits) is in the vault and active for this environment.`,
      { at: active.created_at },
    );
  } else {
    d = draft('pending', 'No signing key for this environment yet.');
  }
  if (active) {
    d.facts.push(
      { label: 'kid', value: active.kid },
      { label: 'fingerprint (RFC 7638)', value: active.fingerprint },
      {
        label: 'expires',
        value: active.expires ? `${active.expires} (in ${active.expires_in_days} days)` : 'no expiry date',
      },
    );
  }
  d.action = active ? 'Create a new key' : 'Create the signing key';
  return d;
}
