/**
 * The guided onboarding walkthrough (issue 6; DESIGN.md "onboarding"): the registration flow of
 * spec 4.4 and the work around it as eight steps. State is derived (derive.ts) from the events
 * the console's own stores record; actions (actions.ts) use the same services as the pages; a
 * small per-environment record in the profile database (progress.ts) keeps the reset mark and
 * what no other store keeps; the evidence pack (pack.ts) is redacted as a whole (redact.ts).
 */
import { ConsoleError } from '../../contract/errors';
import type { EventDetail } from '../../contract/schemas/events';
import type { Environment } from '../../contract/schemas/service';
import type { WalkthroughState } from '../../contract/schemas/walkthrough';
import type { Handlers } from '../../contract';
import type { CoreDeps } from '../core-types';
import type { walkthroughMethods } from '../../contract/domains/walkthrough';
import { APP_NAME, APP_VERSION } from '../version';
import { runAction } from './actions';
import { deriveSteps } from './derive';
import { gatherFacts, type GatheredFacts } from './facts';
import { buildPack } from './pack';
import { rebuildOwnFrom } from './legacy-own';
import { createProgressStore } from './progress';
import { authenticateUrl } from '../service';

export { deriveSteps, type WalkthroughFacts } from './derive';
export { redactPack, shortenSignature } from './redact';

export interface WalkthroughOptions {
  now?: () => number;
}

/** The walkthrough's method handlers (issue 6). */
export function walkthroughHandlers(
  deps: CoreDeps,
  options: WalkthroughOptions = {},
): Pick<Handlers, keyof typeof walkthroughMethods> & { close?: () => Promise<void> } {
  const now = options.now ?? Date.now;
  // A record from before `own` gets it rebuilt once from the old profile (issue 24 item 7).
  const progress = createProgressStore(deps.dataDir, { rebuildOwn: rebuildOwnFrom(deps) });
  const changed = (environmentId: string) =>
    deps.events.emit('walkthrough.changed', {
      environment_id: environmentId,
      at: new Date(now()).toISOString(),
    });

  // A rotation from anywhere (the Service page, the walkthrough) is the proof of step 8, and a
  // failed one its reason: keep the latest per environment.
  const offRotated = deps.events.on('service.rotated', (rotation) => {
    void progress
      .update(rotation.environment_id, (p) => {
        p.rotation = rotation;
      })
      .then(() => changed(rotation.environment_id))
      .catch(() => undefined);
  });

  const environment = (id: string | undefined): Promise<Environment> => deps.services.environments().get(id);

  async function derive(env: Environment): Promise<{ state: WalkthroughState; facts: GatheredFacts }> {
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
      obj: facts.obj,
      sub: facts.sub,
      composed: facts.composed,
      session: session
        ? { exchange_id: session.exchange_id, token: session.token, report: session.report }
        : null,
      authenticate_request:
        facts.composed && env.base_url && env.counterparty_guid
          ? {
              method: 'POST',
              url: authenticateUrl({ base: env.base_url, guid: env.counterparty_guid }),
              headers: { 'CX-Authorization': facts.composed.token },
              body: null,
            }
          : null,
      steps,
      done: steps.filter((s) => s.state === 'done').length,
      total: steps.length,
      derived_at: new Date(now()).toISOString(),
    };
    return { state, facts };
  }

  return {
    'walkthrough.state': async (args) => (await derive(await environment(args?.env_id))).state,

    'walkthrough.run': async (args) => {
      const active = await environment(undefined);
      if (args.env_id !== undefined && args.env_id !== active.id) {
        throw new ConsoleError(
          'BAD_ARGUMENT',
          `the walkthrough acts on the active environment (${active.name}); activate ${JSON.stringify(args.env_id)} first`,
          { field: 'env_id' },
        );
      }
      const result = await runAction({ deps, progress, env: active, input: args, now });
      changed(active.id);
      // The action may have changed the environment (active_kid, counterparty_guid): read it again.
      const { state } = await derive(await environment(active.id));
      return { step: args.step, ok: result.ok, message: result.message, state };
    },

    'walkthrough.reset': async (args) => {
      const env = await environment(args?.env_id);
      await progress.update(
        env.id,
        (p) => {
          p.reset_at = new Date(now()).toISOString();
          p.composed = null;
          p.session = null;
          p.rotation = null;
          p.attempts = {};
        },
        { replaceDamaged: true },
      );
      changed(env.id);
      return (await derive(env)).state;
    },

    'walkthrough.exportPack': async (args) => {
      const env = await environment(args?.env_id);
      const { state, facts } = await derive(env);
      const ids = [...new Set(state.steps.flatMap((s) => s.event_ids))];
      const events: EventDetail[] = [];
      const store = await deps.store().catch(() => null);
      for (const id of ids) {
        const e = await store?.get(id).catch(() => null);
        if (e) events.push(e);
      }
      const generatedAt = new Date(now()).toISOString();
      const pack = buildPack(
        { state, facts, events, app: { name: APP_NAME, version: APP_VERSION }, generatedAt },
        { fullTokens: args?.full_tokens === true },
      );
      const day = generatedAt.slice(0, 10);
      const name =
        env.name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '') || 'env';
      return {
        text: `${JSON.stringify(pack, null, 2)}\n`,
        filename: `dets-walkthrough-${name}-${day}.json`,
        mime: 'application/json',
      };
    },

    close: async () => {
      offRotated();
      await progress.close();
    },
  };
}
