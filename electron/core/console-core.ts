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
  close(): Promise<void>;
}

export async function createConsoleCore(options: CoreOptions): Promise<ConsoleCore> {
  const events = new EventHub();
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let listeners: ListenerUrls = {};

  const handlers: Handlers = {
    'app.info': async () => ({
      name: APP_NAME,
      version: APP_VERSION,
      host: options.host,
      dataDir: options.dataDir,
      listeners: { ...listeners },
    }),
    'inspector.inspect': (args) => inspectToken(args, { fetch: fetchImpl }),
  };

  return {
    handlers,
    events,
    options,
    dispatch: (method, input) => dispatch(handlers, method, input),
    setListeners(urls) {
      listeners = { ...listeners, ...urls };
    },
    async close() {
      // Services with resources (listeners, stores) register their shutdown here as they arrive.
    },
  };
}
