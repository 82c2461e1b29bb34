/**
 * The composition root: builds every core service for one profile (data directory) and
 * implements the ConsoleApi contract on top of them. Each host (Electron main, headless server,
 * CLI) creates exactly one of these and talks to it only through `handlers`, `dispatch` and
 * `events`.
 */
import type { Envelope, Handlers, HostKind } from './types';
import { dispatch } from './dispatch';
import { EventHub } from './event-hub';
import { inspectToken } from './jwt/inspect';
import { createSandbox, type Sandbox, type SandboxListener } from './sandbox';
import { APP_NAME, APP_VERSION } from './version';

export interface CoreOptions {
  dataDir: string;
  host: HostKind;
  /** Used for every outgoing HTTP request (JWKS, service); tests and hosts may inject one. */
  fetch?: typeof fetch;
}

export interface ListenerUrls {
  bank?: string;
  sandbox?: string;
}

export interface ConsoleCore {
  readonly handlers: Handlers;
  readonly events: EventHub;
  readonly options: CoreOptions;
  dispatch(method: unknown, input: unknown): Promise<Envelope<unknown>>;
  /** Hosts report the listeners they started, for `app.info`. */
  setListeners(urls: ListenerUrls): void;
  /** The sandbox, loaded on first use (a damaged state file rejects with STATE_DAMAGED). */
  sandbox(): Promise<Sandbox>;
  /** Starts the sandbox listener and records its URL. */
  listenSandbox(options: { host: string; port: number }): Promise<SandboxListener>;
  close(): Promise<void>;
}

export async function createConsoleCore(options: CoreOptions): Promise<ConsoleCore> {
  const events = new EventHub();
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let listeners: ListenerUrls = {};
  let sandboxPromise: Promise<Sandbox> | undefined;
  const sandbox = (): Promise<Sandbox> => {
    sandboxPromise ??= createSandbox({ dataDir: options.dataDir, events }).catch((err: unknown) => {
      sandboxPromise = undefined; // a fixed state file can be retried without a restart
      throw err;
    });
    return sandboxPromise;
  };
  const sandboxStatus = async () => ({ url: listeners.sandbox ?? null, ...(await (await sandbox()).status()) });

  const handlers: Handlers = {
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
    'sandbox.signIn': async (args) => (await sandbox()).signIn(args),
    'sandbox.notify': async (args) => (await sandbox()).notify(args),
    'sandbox.rotateKey': async () => {
      await (await sandbox()).rotateKey();
      return sandboxStatus();
    },
    'sandbox.updateSettings': async (args) => (await sandbox()).updateSettings(args),
  };

  return {
    handlers,
    events,
    options,
    dispatch: (method, input) => dispatch(handlers, method, input),
    setListeners(urls) {
      listeners = { ...listeners, ...urls };
    },
    sandbox,
    async listenSandbox(opts) {
      const listener = await (await sandbox()).listen(opts);
      listeners = { ...listeners, sandbox: listener.url };
      return listener;
    },
    async close() {
      if (sandboxPromise) await (await sandboxPromise.catch(() => undefined))?.close();
    },
  };
}
