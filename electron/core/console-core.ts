/**
 * The composition root: builds every core service for one profile (data directory) and
 * implements the ConsoleApi contract on top of them. Each host (Electron main, headless server,
 * CLI) creates exactly one of these and talks to it only through `handlers`, `dispatch` and
 * `events`.
 *
 * It only wires: the profile's claim and held notices (core-profile.ts), the services' lazy
 * factories (core-services.ts), the listeners (core-listeners.ts, started by core-listen.ts), the retention timer
 * (core-retention.ts), what is recorded as events (core-recording.ts) and the handler tables
 * (core-handlers.ts).
 */
import type { Handlers } from '../contract';
import { conformanceHandlers } from './conformance';
import { bankHandlers, eventHandlers, sandboxHandlers, serviceHandlers } from './core-handlers';
import { listenBank, listenSandbox } from './core-listen';
import { Listeners } from './core-listeners';
import { openProfile } from './core-profile';
import { createCoreParts, type CoreParts } from './core-services';
import type { ConsoleCore, CoreDeps, CoreOptions } from './core-types';
import { dispatch } from './dispatch';
import { EventHub } from './event-hub';
import type { ProfileClaim } from './store';
import { walkthroughHandlers } from './walkthrough';
import { scenarioHandlers } from './scenario';
import { teamRouteHandlers } from './core-team';
import { unattachableHandlers } from './team';

export type { ConsoleCore, CoreOptions, CoreServices, ListenerUrls } from './core-types';

/** What a feature built on the services (walkthrough, conformance) gets from the root. */
function coreDeps(parts: CoreParts): CoreDeps {
  return {
    dataDir: parts.options.dataDir,
    events: parts.events,
    fetch: parts.fetch,
    services: parts.services,
    store: parts.store,
    bank: parts.bank,
    sandbox: parts.sandbox,
    listeners: () => parts.listeners.urls(),
    tunnel: parts.tunnel,
  };
}

/**
 * Closes in order: the tunnel's client first (nothing should reach a listener that is closing),
 * the features, the bank (stop accepting, finish in-flight), the sandbox, then flush and close
 * the store, and last release the profile.
 */
async function closeCore(
  parts: CoreParts,
  features: Array<(() => Promise<void>) | undefined>,
  claim: ProfileClaim | null,
): Promise<void> {
  await parts.tunnel.close().catch(() => undefined);
  for (const close of features) await close?.().catch(() => undefined);
  await (await parts.bank.started()?.catch(() => undefined))?.close();
  await (await parts.sandbox.started()?.catch(() => undefined))?.close();
  await parts.retention.close();
  await parts.services
    .pairs()
    .close?.()
    .catch(() => undefined);
  await (await parts.store.started()?.catch(() => undefined))?.close();
  claim?.release();
}

/**
 * Creates the core of one profile.
 *
 * @example
 * const core = await createConsoleCore({ dataDir, host: 'browser' });
 * await core.dispatch('keys.list', undefined); // {ok: true, value: [...]}
 * await core.close();
 */
export async function createConsoleCore(options: CoreOptions): Promise<ConsoleCore> {
  const log = options.log ?? ((line: string) => console.error(line));
  const { claim, notices } = await openProfile(options, log);
  const events = new EventHub();
  const listeners = new Listeners();
  const parts = createCoreParts(options, events, listeners);

  const deps = coreDeps(parts);
  const { close: closeWalkthrough, ...walkthrough } = walkthroughHandlers(deps);
  const { close: closeConformance, ...conformance } = conformanceHandlers(deps);
  const scenario = scenarioHandlers({
    deps,
    walkthroughState: (envId) => walkthrough['walkthrough.state']({ env_id: envId }),
    ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
  });
  const handlers: Handlers = {
    ...walkthrough,
    ...scenario,
    ...conformance,
    ...sandboxHandlers(parts),
    ...serviceHandlers(parts),
    ...eventHandlers(parts),
    ...bankHandlers(parts),
    // Outside a team hub a page speaks for the console's own user; a hub answers this itself
    // for the member whose token the call carried (headless/team-guard.ts).
    'team.session': () => Promise.resolve({ hub: null, member: null, role: 'admin' as const }),
    ...teamRouteHandlers(options),
    // A plain core cannot attach (a hub, or the core under `dets-console attach`); the desktop
    // app and `serve` on a laptop put core/team's attached core in front of this one.
    ...unattachableHandlers(),
  };

  return {
    holdNotice: (notice) => notices.hold(notice),
    handlers,
    events,
    options,
    dispatch: (method, input) => {
      notices.flush(events);
      return dispatch(handlers, method, input);
    },
    setListeners: (urls) => listeners.set(urls),
    sandbox: parts.sandbox,
    services: parts.services,
    store: parts.store,
    bank: parts.bank,
    downloads: parts.downloads,
    tunnel: parts.tunnel,
    listenBank: (opts) => listenBank(parts, opts),
    listenSandbox: (opts) => listenSandbox(parts, opts),
    close: () => closeCore(parts, [closeConformance, closeWalkthrough], claim),
  };
}
