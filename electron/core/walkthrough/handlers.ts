/**
 * The walkthrough's method handlers (issue 6): the state (state.ts), a step's action
 * (actions.ts, then the state again), a reset, and the evidence pack (export-pack.ts). A
 * rotation from anywhere is kept as step 8's proof.
 */
import { ConsoleError } from '../../contract/errors';
import type { Environment } from '../../contract/schemas/service';
import type { Handlers } from '../../contract';
import type { CoreDeps } from '../core-types';
import type { walkthroughMethods } from '../../contract/domains/walkthrough';
import { runAction } from './actions';
import { exportPackFile } from './export-pack';
import { rebuildOwnFrom } from './legacy-own';
import { createProgressStore, type ProgressStore } from './progress';
import { deriveState } from './state';

export interface WalkthroughOptions {
  now?: () => number;
}

/** What every handler uses: the core's parts, the progress record and the clock. */
interface HandlerContext {
  deps: CoreDeps;
  progress: ProgressStore;
  now: () => number;
  /** Tells the pages the walkthrough of `environmentId` changed. */
  changed: (environmentId: string) => void;
  environment: (id: string | undefined) => Promise<Environment>;
}

/**
 * A rotation from anywhere (the Service page, the walkthrough) is the proof of step 8, and a
 * failed one its reason: keep the latest per environment. Answers the unsubscribe.
 */
function keepRotations(ctx: HandlerContext): () => void {
  return ctx.deps.events.on('service.rotated', (rotation) => {
    void ctx.progress
      .update(rotation.environment_id, (p) => {
        p.rotation = rotation;
      })
      .then(() => ctx.changed(rotation.environment_id))
      .catch(() => undefined);
  });
}

type RunArgs = Parameters<Handlers['walkthrough.run']>[0];

/** `walkthrough.run`: a step's action on the active environment, then the state again. */
async function runStep(ctx: HandlerContext, args: RunArgs): ReturnType<Handlers['walkthrough.run']> {
  const { deps, progress, now } = ctx;
  const active = await ctx.environment(undefined);
  if (args.env_id !== undefined && args.env_id !== active.id) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      `the walkthrough acts on the active environment (${active.name}); activate ${JSON.stringify(args.env_id)} first`,
      { field: 'env_id' },
    );
  }
  const result = await runAction({ deps, progress, env: active, input: args, now });
  ctx.changed(active.id);
  // The action may have changed the environment (active_kid, counterparty_guid): read it again.
  const { state } = await deriveState(deps, progress, await ctx.environment(active.id), now);
  return { step: args.step, ok: result.ok, message: result.message, state };
}

/** `walkthrough.reset`: a new reset mark; what the walkthrough kept of its own is dropped. */
async function reset(ctx: HandlerContext, envId: string | undefined) {
  const env = await ctx.environment(envId);
  await ctx.progress.update(
    env.id,
    (p) => {
      p.reset_at = new Date(ctx.now()).toISOString();
      p.composed = null;
      p.session = null;
      p.rotation = null;
      p.attempts = {};
    },
    { replaceDamaged: true },
  );
  ctx.changed(env.id);
  return (await deriveState(ctx.deps, ctx.progress, env, ctx.now)).state;
}

/**
 * The walkthrough's methods of the contract, with `close` for the core's shutdown.
 *
 * @example
 * const handlers = walkthroughHandlers(deps);
 * const state = await handlers['walkthrough.state']({});
 */
export function walkthroughHandlers(
  deps: CoreDeps,
  options: WalkthroughOptions = {},
): Pick<Handlers, keyof typeof walkthroughMethods> & { close?: () => Promise<void> } {
  const now = options.now ?? Date.now;
  const ctx: HandlerContext = {
    deps,
    now,
    // A record from before `own` gets it rebuilt once from the old profile (issue 24 item 7).
    progress: createProgressStore(deps.dataDir, { rebuildOwn: rebuildOwnFrom(deps) }),
    changed: (environmentId) =>
      deps.events.emit('walkthrough.changed', {
        environment_id: environmentId,
        at: new Date(now()).toISOString(),
      }),
    environment: (id) => deps.services.environments().get(id),
  };
  const offRotated = keepRotations(ctx);
  return {
    'walkthrough.state': async (args) =>
      (await deriveState(deps, ctx.progress, await ctx.environment(args?.env_id), now)).state,
    'walkthrough.run': (args) => runStep(ctx, args),
    'walkthrough.reset': (args) => reset(ctx, args?.env_id),
    'walkthrough.exportPack': async (args) => {
      const env = await ctx.environment(args?.env_id);
      const derived = await deriveState(deps, ctx.progress, env, now);
      return exportPackFile(deps, env, derived, { fullTokens: args?.full_tokens === true, now });
    },
    close: async () => {
      offRotated();
      await ctx.progress.close();
    },
  };
}
