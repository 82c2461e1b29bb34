/**
 * The services of one profile, each built on first use (core-lazy.ts): the vault, the key store,
 * environments, signed pairs, the composer and the service client; then the event store, the
 * bank endpoints, the sandbox and the tunnel, which also record into the store. Wiring only:
 * every rule lives in the domain that owns it.
 */
import { createBankEndpoints, createSignedPairs, rebuildingReader, type BankEndpoints } from './bank';
import { lazy, lazyAsync, type LazyAsync } from './core-lazy';
import type { Listeners } from './core-listeners';
import { recordExchangesAndTraces, sandboxRefusalRecorder, tunnelRecorder } from './core-recording';
import { RetentionTimer } from './core-retention';
import type { CoreOptions, CoreServices } from './core-types';
import { createDownloads, type Downloads } from './downloads';
import type { EventHub } from './event-hub';
import { createKeyStore } from './keys';
import { createSandbox, type Sandbox } from './sandbox';
import {
  createComposer,
  createEnvironmentStore,
  createServiceClient,
  environmentJwksSources,
} from './service';
import { openEventStore, type EventReader, type EventStore } from './store';
import { createTunnelService, type TunnelService } from './tunnel';
import { openVault } from './vault';

/** Everything the composition root built for one profile; the handlers and the hosts use these. */
export interface CoreParts {
  readonly options: CoreOptions;
  readonly events: EventHub;
  readonly fetch: typeof fetch;
  readonly listeners: Listeners;
  readonly services: CoreServices;
  readonly retention: RetentionTimer;
  readonly store: LazyAsync<EventStore>;
  /** The store as readers see it: callback events whole (bank/callback-detail.ts rebuilds them). */
  readStore(): Promise<EventReader>;
  readonly bank: LazyAsync<BankEndpoints>;
  readonly sandbox: LazyAsync<Sandbox>;
  readonly tunnel: TunnelService;
  readonly downloads: Downloads;
}

/**
 * The six services a page drives directly, built on first use.
 *
 * @example
 * const services = createCoreServices(options, events, listeners);
 * await services.keys().list();
 */
export function createCoreServices(
  options: CoreOptions,
  events: EventHub,
  listeners: Listeners,
): CoreServices {
  const { dataDir } = options;
  const vault = lazy(() =>
    openVault({
      dataDir,
      events,
      env: options.env ?? process.env,
      ...(options.keychain ? { keychain: options.keychain } : {}),
    }),
  );
  // Signing commands of keys held elsewhere run with the console's environment (issue 29 item 3).
  const keys = lazy(() =>
    createKeyStore({ dataDir, vault: vault(), events, env: options.env ?? process.env }),
  );
  const environments = lazy(() =>
    createEnvironmentStore({ dataDir, sandboxUrl: () => listeners.sandbox, events }),
  );
  const pairs = lazy(() => createSignedPairs({ dataDir }));
  const composer = lazy(() => createComposer({ keys: keys(), pairs: pairs(), environments: environments() }));
  const service = lazy(() =>
    createServiceClient({
      dataDir,
      events,
      keys: keys(),
      environments: environments(),
      composer: composer(),
      fetch: options.fetch ?? globalThis.fetch,
    }),
  );
  return { vault, keys, environments, pairs, composer, service };
}

/**
 * The sandbox, built on first use. Its signing key goes through the vault when one is unlocked;
 * otherwise it lives in memory and the sandbox says so (DESIGN.md "Secrets": no plaintext
 * fallback). A failure is not cached: a fixed state file can be retried without a restart.
 */
function sandboxFactory(
  options: CoreOptions,
  events: EventHub,
  services: CoreServices,
  store: LazyAsync<EventStore>,
): LazyAsync<Sandbox> {
  return lazyAsync(async () => {
    const sealer = await Promise.resolve()
      .then(() => services.vault().sealer())
      .catch(() => undefined);
    return createSandbox({
      dataDir: options.dataDir,
      events,
      ...(sealer ? { sealer } : {}),
      onRefused: sandboxRefusalRecorder(store),
      ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
    });
  });
}

/** Every environment's service JWKS (a damaged environments file: the sandbox's alone). */
async function jwksOfEnvironments(services: CoreServices, listeners: Listeners) {
  const sandbox = listeners.sandboxJwksUrl();
  return services
    .environments()
    .list()
    .then((list) => environmentJwksSources(list, sandbox))
    .catch(() => (sandbox ? [{ environment: 'sandbox', name: 'Sandbox', url: sandbox, active: true }] : []));
}

/** The bank endpoints, built on first use over the open store. */
function bankFactory(
  options: CoreOptions,
  parts: Pick<CoreParts, 'events' | 'fetch' | 'listeners' | 'services' | 'store' | 'sandbox'>,
): LazyAsync<BankEndpoints> {
  const { services, listeners } = parts;
  return lazyAsync(async () =>
    createBankEndpoints({
      dataDir: options.dataDir,
      events: parts.events,
      store: await parts.store(),
      pairs: services.pairs(),
      // The flag alone when given (DESIGN.md "Command line": an explicit override); else every
      // environment's service JWKS (issue 26, DESIGN.md "Environments").
      serviceJwksUrl: async () => options.serviceJwksUrl ?? null,
      environmentJwks: () => jwksOfEnvironments(services, listeners),
      vault: services.vault(),
      signServiceToken: async (claims) => (await parts.sandbox()).signServiceToken(claims),
      fetch: parts.fetch,
      ...(options.relay ? { relay: options.relay } : {}),
    }),
  );
}

/**
 * Builds every part of one profile's core; nothing is opened until first used.
 *
 * @example
 * const parts = createCoreParts(options, new EventHub(), new Listeners());
 * await parts.bank(); // opens the store, then the bank endpoints
 */
export function createCoreParts(options: CoreOptions, events: EventHub, listeners: Listeners): CoreParts {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const services = createCoreServices(options, events, listeners);
  const retention = new RetentionTimer(options.dataDir);
  const store = lazyAsync(async () => {
    const opened = await (options.eventStore ?? openEventStore)({ dataDir: options.dataDir, events });
    retention.start();
    return opened;
  });
  recordExchangesAndTraces(events, store);
  const sandbox = sandboxFactory(options, events, services, store);
  const bank = bankFactory(options, { events, fetch: fetchImpl, listeners, services, store, sandbox });
  const tunnel = createTunnelService({
    dataDir: options.dataDir,
    events,
    flagPublicUrl: options.publicUrl ?? null,
    listener: () => listeners.bank,
    notifyPrefix: async () => (await (await bank()).status()).notify_path_prefix,
    environmentPublicUrl: async () => (await services.environments().get()).public_url ?? null,
    sshSettings: (id) => services.environments().sshTunnel(id),
    saveSshSettings: (id, settings) => services.environments().saveSshTunnel(id, settings),
    env: options.env ?? process.env,
    record: tunnelRecorder(store),
  });
  return {
    options,
    events,
    fetch: fetchImpl,
    listeners,
    services,
    retention,
    store,
    readStore: async () => rebuildingReader(await store()),
    bank,
    sandbox,
    tunnel,
    downloads: createDownloads(),
  };
}
