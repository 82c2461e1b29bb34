/**
 * The composition root: builds every core service for one profile (data directory) and
 * implements the ConsoleApi contract on top of them. Each host (Electron main, headless server,
 * CLI) creates exactly one of these and talks to it only through `handlers`, `dispatch` and
 * `events`.
 */
import type { Handlers } from '../contract';
import type { Notice } from '../contract/schemas/app';
import { TRANSPORT } from '../contract/transport';
import {
  createBankEndpoints,
  createSignedPairs,
  originRefusedEvent,
  rebuildCallbackDetail,
  rebuildingReader,
} from './bank';
import { derivedJwksUrl, parseJsonText } from './common';
import { conformanceHandlers } from './conformance';
import type { ConsoleCore, CoreDeps, CoreOptions, CoreServices, ListenerUrls } from './core-types';
import { dispatch } from './dispatch';
import { createDownloads } from './downloads';
import { EventHub } from './event-hub';
import { inspectToken } from './jwt';
import { createKeyStore } from './keys';
import { createSandbox, type Sandbox } from './sandbox';
import { createComposer, createEnvironmentStore, createServiceClient } from './service';
import {
  blankEvent,
  claimProfile,
  createNotificationRetention,
  exportEvents,
  openEventStore,
  recoverIfRequested,
  recoveryWaitLine,
  requestRecovery,
  type EventReader,
  type ProfileClaim,
} from './store';
import { createTunnelService, TunnelError } from './tunnel';
import { openVault } from './vault';
import { APP_NAME, APP_VERSION } from './version';
import { walkthroughHandlers } from './walkthrough';

export type { ConsoleCore, CoreOptions, CoreServices, ListenerUrls } from './core-types';

/** How often the notification retention is applied again while the console runs. */
const RETENTION_EVERY_MS = 10 * 60 * 1000;

/** Memoizes a factory: the service is built on first use, once. */
function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

export async function createConsoleCore(options: CoreOptions): Promise<ConsoleCore> {
  const events = new EventHub();
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const { dataDir } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  // The owner's claim comes before anything opens the database (DESIGN.md "Storage"): a second
  // owner is refused here (CONFLICT, naming the first), and one started during a `store recover`
  // waits for it.
  const role = options.owner ?? (options.host === 'desktop' ? 'desktop app' : null);
  const claim: ProfileClaim | null = role
    ? await claimProfile(dataDir, role, {
        onWait: (r) => log(recoveryWaitLine(r)),
        ...(options.stopWaiting ? { signal: options.stopWaiting } : {}),
      })
    : null;
  // A recovery asked for from the UI (events.requestRecovery) runs before anything here opens the
  // database; the owners (and a browser-mode core) run it, the one-shot CLI commands leave it to
  // them. An owner runs it under its own claim; without one, the recovery claims the profile.
  const recovered =
    claim || options.host !== 'cli'
      ? await recoverIfRequested(dataDir, log, { claimed: claim !== null })
      : null;
  let listeners: ListenerUrls = {};
  let bankWhere: { url: string; host: string; port: number } | null = null;

  const vault = lazy(() =>
    openVault({
      dataDir,
      events,
      env: options.env ?? process.env,
      ...(options.keychain ? { keychain: options.keychain } : {}),
    }),
  );
  const keys = lazy(() => createKeyStore({ dataDir, vault: vault(), events }));
  const environments = lazy(() =>
    createEnvironmentStore({ dataDir, sandboxUrl: () => listeners.sandbox ?? null, events }),
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
      fetch: fetchImpl,
    }),
  );
  const services: CoreServices = { vault, keys, environments, pairs, composer, service };

  /** A promise-returning factory built once; a failure is not cached, so it can be retried. */
  const lazyAsync = <T>(
    make: () => Promise<T>,
  ): (() => Promise<T>) & { started(): Promise<T> | undefined } => {
    let made: Promise<T> | undefined;
    const get = () =>
      (made ??= make().catch((err: unknown) => {
        made = undefined;
        throw err;
      }));
    return Object.assign(get, { started: () => made });
  };
  // Acknowledged notifications' retention, the user's setting (store/notification-retention.ts):
  // applied when the store opens and then every RETENTION_EVERY_MS, so it keeps holding.
  const retention = lazy(() => createNotificationRetention({ dataDir }));
  let retentionTimer: NodeJS.Timeout | null = null;
  const startRetention = () => {
    const run = () =>
      void retention()
        .apply()
        .catch(() => undefined);
    run();
    retentionTimer ??= setInterval(run, RETENTION_EVERY_MS);
    retentionTimer.unref();
  };
  const store = lazyAsync(async () => {
    const opened = await (options.eventStore ?? openEventStore)({ dataDir, events });
    startRetention();
    return opened;
  });
  /** The store as readers see it: callback events whole (bank/callback-detail.ts rebuilds them). */
  const readStore = async (): Promise<EventReader> => rebuildingReader(await store());
  const sandboxJwksUrl = () => (listeners.sandbox ? derivedJwksUrl(listeners.sandbox) : null);
  const bank = lazyAsync(async () =>
    createBankEndpoints({
      dataDir,
      events,
      store: await store(),
      pairs: pairs(),
      serviceJwksUrl: async () =>
        options.serviceJwksUrl ??
        (await environments()
          .get()
          .then((env) => env.effective_jwks_url)
          .catch(() => null)) ??
        sandboxJwksUrl(),
      vault: vault(),
      signServiceToken: async (claims) => (await sandbox()).signServiceToken(claims),
      fetch: fetchImpl,
    }),
  );
  // Service exchanges and sandbox traces become events too (issue 5: every exchange, every trace).
  const record = (
    kind: 'exchange' | 'trace',
    summary: { at: string; ok: boolean },
    data: unknown,
    path: string | null,
  ) =>
    void store()
      .then((s) => s.append({ ...blankEvent(kind, summary.at), path, data }))
      .catch(() => undefined);
  events.on('service.exchanged', (x) => record('exchange', x, x, x.request.url));
  events.on('sandbox.traced', (t) => record('trace', t, t, t.kind));

  let sandboxPromise: Promise<Sandbox> | undefined;
  const sandbox = (): Promise<Sandbox> => {
    sandboxPromise ??= (async () => {
      // The sandbox's signing key goes through the vault when one is unlocked; otherwise it
      // lives in memory and the sandbox says so (DESIGN.md "Secrets": no plaintext fallback).
      const sealer = await Promise.resolve()
        .then(() => vault().sealer())
        .catch(() => undefined);
      return createSandbox({
        dataDir,
        events,
        ...(sealer ? { sealer } : {}),
        // A web page's request to the sandbox (403): a compact refused record, like the bank's.
        onRefused: (r) =>
          void store()
            .then((s) => s.append(originRefusedEvent(r, 'trace')))
            .catch(() => undefined),
      });
    })().catch((err: unknown) => {
      sandboxPromise = undefined; // a fixed state file can be retried without a restart
      throw err;
    });
    return sandboxPromise;
  };
  const sandboxStatus = async () => ({
    url: listeners.sandbox ?? null,
    ...(await (await sandbox()).status()),
  });

  const downloads = createDownloads();
  // Each drop and return of the tunnel is stored as a trace event (an existing kind; the store's
  // schema is unchanged): path tunnel.up / tunnel.down, the client's last words as the warning.
  const tunnel = createTunnelService({
    dataDir,
    events,
    flagPublicUrl: options.publicUrl ?? null,
    listener: () => bankWhere,
    notifyPrefix: async () => (await (await bank()).status()).notify_path_prefix,
    environmentPublicUrl: async () => (await environments().get()).public_url ?? null,
    env: options.env ?? process.env,
    record: (info, url) =>
      void store()
        .then((s) =>
          s.append({
            ...blankEvent('trace', new Date().toISOString()),
            path: `tunnel.${info.state}`,
            warning: info.state === 'down' ? info.last_error : null,
            data: { tunnel: info, public_url: url },
          }),
        )
        .catch(() => undefined),
  });

  const deps: CoreDeps = {
    dataDir,
    events,
    fetch: fetchImpl,
    services,
    store,
    bank,
    sandbox,
    listeners: () => ({ ...listeners }),
    tunnel,
  };
  const { close: closeWalkthrough, ...walkthrough } = walkthroughHandlers(deps);
  const { close: closeConformance, ...conformance } = conformanceHandlers(deps);

  const handlers: Handlers = {
    ...walkthrough,
    ...conformance,
    'app.info': async () => ({
      name: APP_NAME,
      version: APP_VERSION,
      host: options.host,
      dataDir: options.dataDir,
      listeners: { ...listeners },
    }),
    'inspector.inspect': (args) => inspectToken(args, { fetch: fetchImpl }),
    'sandbox.status': () => sandboxStatus(),
    'sandbox.traces': async (args) => (await sandbox()).traces(args ?? {}),
    'sandbox.onboard': async (args) => (await sandbox()).onboard(args),
    'sandbox.updateCounterparty': async (args) => (await sandbox()).updateCounterparty(args),
    'sandbox.deleteCounterparty': async (args) => (await sandbox()).deleteCounterparty(args),
    'sandbox.signIn': async (args) => (await sandbox()).signIn(args),
    'sandbox.notify': async (args) => (await sandbox()).notify(args),
    'sandbox.rotateKey': async () => {
      await (await sandbox()).rotateKey();
      return sandboxStatus();
    },
    'sandbox.updateSettings': async (args) => (await sandbox()).updateSettings(args),
    'vault.status': () => vault().status(),
    'vault.unlock': (args) => vault().unlock(args.passphrase),
    'vault.createPassphrase': (args) => vault().createPassphraseVault(args.passphrase),
    'keys.list': () => keys().list(),
    'keys.generate': (args) => keys().generate(args),
    'keys.import': (args) => keys().import(args),
    'keys.export': (args) => keys().export(args),
    'keys.update': (args) => keys().update(args),
    'keys.delete': async (args) => {
      await keys().delete(args);
      return { deleted: args.kid };
    },
    'jwt.sign': (args) => composer().sign(args),
    'env.list': () => environments().list(),
    'env.save': (args) => environments().save(args),
    'env.remove': async (args) => {
      await environments().remove(args.id);
      return environments().list();
    },
    'env.activate': (args) => environments().activate(args.id),
    'service.authenticate': (args) => service().authenticate(args),
    'service.registerJwk': (args) => service().registerJwk(args),
    'service.updateJwk': (args) => service().updateJwk(args),
    'service.listJwks': () => service().listJwks(),
    'service.fetchJwks': () => service().fetchJwks(),
    'service.exchanges': (args) => service().exchanges(args?.limit),
    'service.rotate': (args) => service().rotate(args),
    'events.query': async (args) => (await store()).query(args ?? {}),
    'events.stats': async (args) => (await store()).stats(args),
    'events.get': async (args) => rebuildCallbackDetail(await (await store()).get(args.id)),
    'events.export': async (args) => exportEvents(await readStore(), args.format, args.query ?? {}),
    'events.health': async () => (await store()).health(),
    'events.requestRecovery': async () => requestRecovery(dataDir),
    'events.retention': async () => {
      const health = (await store()).health();
      return {
        ...retention().get(),
        size_bytes: health.size_bytes ?? null,
        size_warning: health.size_warning ?? null,
      };
    },
    'events.setRetention': async (args) => {
      await store(); // the database exists and is migrated
      return retention().set(args);
    },
    'bank.status': async () => (await bank()).status(),
    'bank.customers': async () => (await bank()).customers(),
    'bank.saveCustomer': async (args) => (await bank()).saveCustomer(args),
    'bank.removeCustomer': async (args) => {
      await (await bank()).removeCustomer(args.obj);
      return { removed: args.obj };
    },
    'bank.importCustomers': async (args) => ({
      imported: await (await bank()).importCustomers(parseJsonText(args.text, 'text')),
    }),
    // Issue 13 item 7: what the page reads never holds a secret key; the file with them is a
    // one-time download the host serves straight to the browser's save flow.
    'bank.exportCustomers': async () => ({
      text: `${JSON.stringify(
        (await (await bank()).exportCustomers()).map(({ key: _key, ...rest }) => rest),
        null,
        2,
      )}\n`,
      filename: 'dets-console-users-without-keys.json',
    }),
    'bank.exportCustomersWithKeys': async () => {
      const customers = await (await bank()).exportCustomers();
      const filename = 'dets-console-users.json';
      const { ticket, expires_at } = downloads.offer({
        content: `${JSON.stringify(customers, null, 2)}\n`,
        filename,
        mime: 'application/json',
      });
      return {
        path: `${TRANSPORT.downloadPathPrefix}${ticket}`,
        filename,
        count: customers.length,
        expires_at,
      };
    },
    'bank.setBehaviours': async (args) => (await bank()).setBehaviours(args),
    'bank.setForward': async (args) => (await bank()).setForward(args),
    'bank.setNotifyPrefix': async (args) => ({
      notify_path_prefix: await (await bank()).setNotifyPrefix(args.prefix),
    }),
    'bank.setServiceJwksUrl': async (args) => (await bank()).setServiceJwksUrl(args.url),
    'bank.recheck': async (args) => (await bank()).recheck(args.id),
    'bank.replay': async (args) => (await bank()).replay(args.id),
    'tunnel.status': () => tunnel.status(),
    'tunnel.setPublicUrl': (args) => tunnel.setPublicUrl(args.url),
    // A tunnel that cannot be made is a state the Bank page shows (failed, with the client's words).
    'tunnel.start': (args) =>
      tunnel.start(args.target).catch((err: unknown) => {
        if (err instanceof TunnelError) return tunnel.status();
        throw err;
      }),
    'tunnel.stop': () => tunnel.stop(),
    'tunnel.probe': () => tunnel.probe(),
  };

  const held: Notice[] = recovered ? [recovered] : [];
  return {
    holdNotice: (notice) => void held.push(notice),
    handlers,
    events,
    options,
    dispatch: (method, input) => {
      for (const notice of held.splice(0)) events.emit('app.noticed', notice);
      return dispatch(handlers, method, input);
    },
    setListeners(urls) {
      listeners = { ...listeners, ...urls };
    },
    sandbox,
    services,
    store,
    bank,
    downloads,
    tunnel,
    async listenBank(opts) {
      const listener = await (await bank()).listen({ ...opts, intercept: tunnel.probeRoute });
      listeners = { ...listeners, bank: listener.url };
      bankWhere = { url: listener.url, host: opts.host, port: listener.port };
      return listener;
    },
    async listenSandbox(opts) {
      const listener = await (await sandbox()).listen(opts);
      listeners = { ...listeners, sandbox: listener.url };
      return listener;
    },
    async close() {
      // The tunnel's client first: nothing should reach a listener that is closing.
      await tunnel.close().catch(() => undefined);
      await closeConformance?.().catch(() => undefined);
      await closeWalkthrough?.().catch(() => undefined);
      // Bank first (stop accepting, finish in-flight), then flush and close the store.
      await (await bank.started()?.catch(() => undefined))?.close();
      if (sandboxPromise) await (await sandboxPromise.catch(() => undefined))?.close();
      if (retentionTimer) clearInterval(retentionTimer);
      await retention().close();
      await pairs()
        .close?.()
        .catch(() => undefined);
      await (await store.started()?.catch(() => undefined))?.close();
      claim?.release();
    },
  };
}
