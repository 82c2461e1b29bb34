/**
 * The ConsoleApi's methods on the core's services (the contract's handlers, DESIGN.md "hosts"),
 * one small table per domain. Each entry forwards to the service that owns the rule; the only
 * logic here is the shape the contract asks for (what a delete returns, a failed tunnel as a
 * state).
 */
import type { Handlers } from '../contract';
import { TRANSPORT } from '../contract/transport';
import { rebuildCallbackDetail } from './bank';
import { parseJsonText } from './common';
import type { CoreParts } from './core-services';
import { inspectToken } from './jwt';
import { withEnvironments } from './service';
import { exportEvents, requestRecovery } from './store';
import { TunnelError } from './tunnel';
import { APP_NAME, APP_VERSION } from './version';

type Table = Partial<Handlers>;

/** app.info, the inspector and the sandbox. */
export function sandboxHandlers(parts: CoreParts) {
  const { sandbox, listeners, options } = parts;
  const sandboxStatus = async () => ({ url: listeners.sandbox, ...(await (await sandbox()).status()) });
  return {
    'app.info': async () => ({
      name: APP_NAME,
      version: APP_VERSION,
      host: options.host,
      dataDir: options.dataDir,
      listeners: listeners.urls(),
    }),
    'inspector.inspect': (args) => inspectToken(args, { fetch: parts.fetch }),
    'sandbox.status': () => sandboxStatus(),
    'sandbox.traces': async (args) => (await sandbox()).traces(args ?? {}),
    'sandbox.onboard': async (args) => (await sandbox()).onboard(args),
    'sandbox.updateCounterparty': async (args) => (await sandbox()).updateCounterparty(args),
    'sandbox.deleteCounterparty': async (args) => (await sandbox()).deleteCounterparty(args),
    'sandbox.signIn': async (args) => (await sandbox()).signIn(args),
    'sandbox.notify': async (args) => (await sandbox()).notify(args),
    'sandbox.delivery': async (args) => (await sandbox()).delivery(args),
    'sandbox.deliveries': async (args) => (await sandbox()).deliveries(args ?? {}),
    'sandbox.rotateKey': async () => {
      await (await sandbox()).rotateKey();
      return sandboxStatus();
    },
    'sandbox.updateSettings': async (args) => (await sandbox()).updateSettings(args),
  } satisfies Table;
}

/** The vault, keys, the composer, environments and the service client. */
export function serviceHandlers({ services }: CoreParts) {
  const { vault, keys, composer, environments, service } = services;
  return {
    'vault.status': () => vault().status(),
    'vault.unlock': (args) => vault().unlock(args.passphrase),
    'vault.createPassphrase': (args) => vault().createPassphraseVault(args.passphrase),
    // Each key with its status per environment (issue 26; DESIGN.md "Environments"); a damaged
    // environments file (reported by env.list) leaves the keys listed, without environments.
    'keys.list': async () => {
      const list = await keys().list();
      const envs = await environments()
        .list()
        .then((v) => v.environments)
        .catch(() => []);
      return withEnvironments(list, envs);
    },
    'keys.generate': (args) => keys().generate(args),
    'keys.import': (args) => keys().import(args),
    'keys.addExternal': (args) => keys().addExternal(args),
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
  } satisfies Table;
}

/** The event store: queries, export, health, recovery and the notifications' retention. */
export function eventHandlers(parts: CoreParts) {
  const { store, retention } = parts;
  return {
    'events.query': async (args) => (await store()).query(args ?? {}),
    'events.stats': async (args) => (await store()).stats(args),
    'events.get': async (args) => rebuildCallbackDetail(await (await store()).get(args.id)),
    'events.export': async (args) => exportEvents(await parts.readStore(), args.format, args.query ?? {}),
    'events.health': async () => (await store()).health(),
    'events.requestRecovery': async () => requestRecovery(parts.options.dataDir),
    'events.retention': async () => {
      const health = (await store()).health();
      return {
        ...retention.service.get(),
        size_bytes: health.size_bytes ?? null,
        size_warning: health.size_warning ?? null,
      };
    },
    'events.setRetention': async (args) => {
      await store(); // the database exists and is migrated
      return retention.service.set(args);
    },
  } satisfies Table;
}

/** The bank endpoints' settings and users, and the tunnel in front of them. */
export function bankHandlers(parts: CoreParts) {
  const { bank, tunnel, downloads } = parts;
  return {
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
    'bank.freshSession': async (args) => (await bank()).freshSession(args.id),
    'tunnel.status': () => tunnel.status(),
    'tunnel.setPublicUrl': (args) => tunnel.setPublicUrl(args.url),
    // A tunnel that cannot be made is a state the Bank page shows (failed, with the client's words).
    'tunnel.start': (args) =>
      tunnel.start(args.target).catch((err: unknown) => {
        if (err instanceof TunnelError) return tunnel.status();
        throw err;
      }),
    'tunnel.stop': () => tunnel.stop(),
    'tunnel.saveSsh': ({ environment_id, ...settings }) => tunnel.saveSsh(environment_id, settings),
    // Confirming a host key starts the tunnel again: a failure is again a state the page shows.
    'tunnel.trustHostKey': (args) =>
      tunnel.trustHostKey(args.host, args.fingerprint).catch((err: unknown) => {
        if (err instanceof TunnelError) return tunnel.status();
        throw err;
      }),
    'tunnel.unpinHostKey': (args) => tunnel.unpinHostKey(args.host),
    'tunnel.probe': () => tunnel.probe(),
  } satisfies Table;
}
