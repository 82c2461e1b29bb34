/**
 * Key rotation as one guided action (spec 5.3: "before a key expires, the new JWK is registered
 * through endpoint 1"; DESIGN.md "keys"):
 *
 *   generate  a next key (status 'next'), or reuse `next_kid` from an earlier attempt
 *   register  PUT …/jwk/{jwk_guid} with its public JWK, signed by the CURRENT active key
 *   prove     authenticate with a JWT signed by the NEW key
 *   activate  the new key becomes active, and the environment's active_kid
 *   retire    the old key is retired (kept, and registered with the service, until its expiry)
 *
 * There is never a moment where signing fails: the old key stays active, and the environment
 * unchanged, until the service has accepted a JWT signed by the new one. The first failure
 * stops the rotation (state 'failed') with the step's explanation and exchange id; the next key
 * stays 'next', so `rotate({next_kid})` resumes without generating again, and re-registers under
 * the same jwk_guid as before (a kid names one key: the sandbox, like the service, refuses it
 * under a second jwk_guid).
 */
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { KeyInfo } from '../../contract/schemas/keys';
import type { RotateInput, Rotation } from '../../contract/schemas/service';
import { defaultExpiry } from '../keys';
import { authenticateWith } from './authenticate';
import type { ClientContext } from './client-context';
import { sendJwk } from './jwk-operations';
import { registeredJwkGuid } from './registrations';
import {
  exchangeSummary,
  fail,
  finish,
  messageOf,
  retryHint,
  settle,
  startRun,
  stillActive,
  type RotationRun,
} from './rotation-run';
import { signingKey } from './signing';
import { quote, requireTarget, type Target } from './target';

type Input = z.output<typeof RotateInput>;

/** Missing configuration is thrown before any step: no active key, or next_kid is that key. */
async function rotatableFrom(ctx: ClientContext, target: Target, input: Input): Promise<string> {
  const { env } = target;
  const fromKid = env.active_kid;
  if (fromKid === null) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      `${env.kind === 'sandbox' ? 'the sandbox environment' : `environment ${quote(env.name)}`} has no ` +
        'active_kid, so there is no current key to rotate from (registering the next key must be signed ' +
        `by it): set the key registered at onboarding with env.save {id: ${quote(env.id)}, active_kid: …}`,
      { field: 'active_kid' },
    );
  }
  await signingKey(ctx, fromKid, "the environment's active key", env);
  if (input.next_kid === fromKid) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      `next_kid ${quote(fromKid)} is the active key itself: rotation moves to another key (omit next_kid to generate one)`,
      { field: 'next_kid' },
    );
  }
  return fromKid;
}

/** Step 1, resuming: reuse `next_kid` from an earlier attempt (never a retired key). */
async function reuseNext(run: RotationRun, input: Input & { next_kid: string }): Promise<Rotation | null> {
  try {
    run.next = await run.ctx.options.keys.get(input.next_kid);
  } catch (err) {
    return fail(
      run,
      'generate',
      `next_kid ${quote(input.next_kid)}: ${messageOf(err)}; omit next_kid to generate a new key`,
    );
  }
  const next = run.next;
  if (next.status === 'retired') {
    return fail(
      run,
      'generate',
      `kid ${quote(next.kid)} is retired and cannot become active again: omit next_kid to generate a new key`,
    );
  }
  const ignored = (['alg', 'bits', 'expires'] as const).filter((f) => input[f] !== undefined);
  settle(
    run,
    'generate',
    'passed',
    `reusing kid ${quote(next.kid)} (status ${next.status}, ${next.alg}, ${next.bits} bits` +
      `${next.holder === 'external' ? ', held elsewhere' : ''}): nothing generated` +
      (ignored.length ? `; ${ignored.join(', ')} ignored (they apply to a new key)` : ''),
  );
  return null;
}

/** Step 1: generate a next key (status 'next'), or reuse `next_kid`. */
async function generate(run: RotationRun, input: Input): Promise<Rotation | null> {
  if (input.next_kid !== undefined) return reuseNext(run, { ...input, next_kid: input.next_kid });
  const { env, guid } = run.target;
  let next: KeyInfo;
  try {
    next = await run.ctx.options.keys.generate({
      status: 'next',
      label: `next key for ${env.kind === 'sandbox' ? 'the sandbox' : env.name}`,
      counterparty_guid: guid,
      ...(input.alg !== undefined ? { alg: input.alg } : {}),
      ...(input.bits !== undefined ? { bits: input.bits } : {}),
      // No date given: the default validity, as the walkthrough's keys (issue 26 item 5).
      expires: input.expires ?? defaultExpiry(run.ctx.now()),
    });
  } catch (err) {
    return fail(run, 'generate', `no key was generated: ${messageOf(err)}. ${stillActive(run)}.`);
  }
  run.next = next;
  settle(
    run,
    'generate',
    'passed',
    `generated kid ${quote(next.kid)} (${next.alg}, ${next.bits} bits` +
      `${next.expires ? `, expires ${next.expires}` : ''}) with status ${next.status}`,
  );
  return null;
}

/** Step 2: PUT, signed by the current key (spec 4.1 #1, 5.3), under the jwk_guid used before. */
async function register(run: RotationRun, next: KeyInfo): Promise<Rotation | null> {
  const { ctx, target, fromKid } = run;
  const retry = retryHint(next.kid);
  let exchange;
  try {
    const earlier = await registeredJwkGuid(ctx, target, next.kid);
    exchange = await sendJwk(ctx, target, {
      via: 'put',
      kid: next.kid,
      signingKid: fromKid,
      ...(earlier !== null ? { jwkGuid: earlier } : {}),
    });
  } catch (err) {
    return fail(run, 'register', `${messageOf(err)}. ${stillActive(run)}; ${retry}.`);
  }
  if (exchange.ok) {
    settle(
      run,
      'register',
      'passed',
      `PUT …/jwk/${exchange.jwk_guid} answered ${exchange.response?.status}: kid ${quote(next.kid)} registered, signed by ${quote(fromKid)}`,
      exchange.id,
    );
  } else if (exchange.response?.status === 409) {
    // Already registered (e.g. under another jwk_guid by hand): the proof decides.
    settle(
      run,
      'register',
      'skipped',
      `${exchangeSummary(exchange)} The kid looks registered already; the next step proves whether the service accepts it.`,
      exchange.id,
    );
  } else {
    return fail(run, 'register', `${exchangeSummary(exchange)} ${stillActive(run)}; ${retry}.`, exchange.id);
  }
  return null;
}

/** Step 3: the service accepts a JWT signed by the new key. */
async function prove(run: RotationRun, next: KeyInfo): Promise<Rotation | null> {
  const retry = retryHint(next.kid);
  let proof;
  try {
    proof = await authenticateWith(run.ctx, run.target, next.kid);
  } catch (err) {
    return fail(run, 'prove', `${messageOf(err)}. ${stillActive(run)}; ${retry}.`);
  }
  if (!proof.exchange.ok) {
    return fail(
      run,
      'prove',
      `${exchangeSummary(proof.exchange)} ${stillActive(run)}; ${retry}.`,
      proof.exchange.id,
    );
  }
  settle(
    run,
    'prove',
    'passed',
    `authenticate with a JWT signed by ${quote(next.kid)} answered ${proof.exchange.response?.status} with a session_token`,
    proof.exchange.id,
  );
  return null;
}

/**
 * Step 4: the environment first, then the key (the key store retires the key that was active
 * as it activates another); put the environment back if the key cannot follow.
 */
async function activate(run: RotationRun, next: KeyInfo): Promise<Rotation | null> {
  const { ctx, fromKid } = run;
  const { env } = run.target;
  const retry = retryHint(next.kid);
  try {
    await ctx.options.environments.save({ id: env.id, active_kid: next.kid });
  } catch (err) {
    return fail(
      run,
      'activate',
      `the environment's active_kid could not be saved: ${messageOf(err)}. ${stillActive(run)}; ${retry}.`,
    );
  }
  try {
    await ctx.options.keys.update({ kid: next.kid, status: 'active' });
  } catch (err) {
    const undo = await ctx.options.environments
      .save({ id: env.id, active_kid: fromKid })
      .then(() => `the environment's active_kid is back to ${quote(fromKid)}`)
      .catch(
        (e: unknown) =>
          `putting the environment's active_kid back to ${quote(fromKid)} failed too (${messageOf(e)})`,
      );
    return fail(
      run,
      'activate',
      `kid ${quote(next.kid)} could not be made active: ${messageOf(err)}; ${undo}. ${retry}.`,
    );
  }
  settle(
    run,
    'activate',
    'passed',
    `kid ${quote(next.kid)} is active: the environment signs with it from now on`,
  );
  return null;
}

/** Step 5: the old key is no longer used to sign, but kept until it expires. Never fails the rotation. */
async function retire(run: RotationRun): Promise<void> {
  const { ctx, fromKid } = run;
  let old: KeyInfo;
  try {
    // The key store retires the previously active key as it activates another; make sure of it.
    old = await ctx.options.keys.get(fromKid);
    if (old.status !== 'retired') old = await ctx.options.keys.update({ kid: fromKid, status: 'retired' });
  } catch (err) {
    settle(
      run,
      'retire',
      'failed',
      `kid ${quote(fromKid)} could not be retired: ${messageOf(err)}. The new key is active already; ` +
        `retire the old one by hand (keys.update {kid: ${quote(fromKid)}, status: "retired"})`,
    );
    return;
  }
  settle(
    run,
    'retire',
    'passed',
    `kid ${quote(fromKid)} retired: no longer used to sign, kept (and still registered with the service) ` +
      (old.expires ? `until it expires on ${old.expires}` : 'until you delete it (it has no expiry date)'),
  );
}

/**
 * Runs one rotation on the active environment. Missing configuration (no base_url,
 * counterparty_guid or active key) is thrown before any step; everything after is reported in
 * the steps.
 *
 * @example
 * const rotation = await runRotation(ctx, {}); // rotation.state: 'done' | 'failed', rotation.steps[…]
 */
export async function runRotation(ctx: ClientContext, input: Input): Promise<Rotation> {
  const startedAt = new Date(ctx.now()).toISOString();
  const target = requireTarget(await ctx.options.environments.get());
  const fromKid = await rotatableFrom(ctx, target, input);
  const run = startRun(ctx, target, fromKid, startedAt);
  const stopped = await generate(run, input);
  if (stopped) return stopped;
  const next = run.next as KeyInfo;
  for (const step of [register, prove, activate]) {
    const stop = await step(run, next);
    if (stop) return stop;
  }
  await retire(run);
  return finish(run, 'done');
}
