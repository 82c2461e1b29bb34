/**
 * `walkthrough.exportPack`: the evidence pack as a file a person saves, with the stored events
 * the steps name (pack.ts builds and redacts it as a whole).
 */
import type { EventDetail } from '../../contract/schemas/events';
import type { Environment } from '../../contract/schemas/service';
import type { CoreDeps } from '../core-types';
import { APP_NAME, APP_VERSION } from '../version';
import { buildPack } from './pack';
import type { DerivedState } from './state';

/** The stored events the steps name, in the steps' order; an event that cannot be read is left out. */
async function eventsOf(deps: CoreDeps, derived: DerivedState): Promise<EventDetail[]> {
  const ids = [...new Set(derived.state.steps.flatMap((s) => s.event_ids))];
  const events: EventDetail[] = [];
  const store = await deps.store().catch(() => null);
  for (const id of ids) {
    const e = await store?.get(id).catch(() => null);
    if (e) events.push(e);
  }
  return events;
}

/** `Staging (EU)` → `staging-eu`: the environment's name as a file name part. */
export function fileSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'env'
  );
}

/**
 * The evidence pack of `env` as a JSON file named for the environment and the day.
 *
 * @example
 * const file = await exportPackFile(deps, env, await deriveState(deps, progress, env, now), { fullTokens: false, now });
 * file.filename; // 'dets-walkthrough-sandbox-2026-11-27.json'
 */
export async function exportPackFile(
  deps: CoreDeps,
  env: Environment,
  derived: DerivedState,
  options: { fullTokens: boolean; now: () => number },
): Promise<{ text: string; filename: string; mime: string }> {
  const events = await eventsOf(deps, derived);
  const generatedAt = new Date(options.now()).toISOString();
  const pack = buildPack(
    { ...derived, events, app: { name: APP_NAME, version: APP_VERSION }, generatedAt },
    { fullTokens: options.fullTokens },
  );
  return {
    text: `${JSON.stringify(pack, null, 2)}\n`,
    filename: `dets-walkthrough-${fileSlug(env.name)}-${generatedAt.slice(0, 10)}.json`,
    mime: 'application/json',
  };
}
