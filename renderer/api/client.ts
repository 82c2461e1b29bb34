/**
 * Picks how this page talks to the core: the desktop app's preload facade when it is there,
 * else the browser-mode HTTP transport of the headless host. The rest of the renderer sees only
 * a `ConsoleClient` and never cares which.
 */
import { TRANSPORT, buildFacade, reviveBridgedErrors, type ConsoleApi } from '../../electron/contract';
import { takeAccessToken, type TokenEnv } from './access-token';
import type { EventStreamState, StatusStore } from './event-stream';
import { createHttpTransport, type HttpTransportOptions } from './http-transport';

declare global {
  interface Window {
    /** Exposed by the desktop app's preload through contextBridge. */
    detsConsole?: ConsoleApi;
  }
}

export type HostMode = 'desktop' | 'browser';

export interface ConsoleClient {
  api: ConsoleApi;
  mode: HostMode;
  /** The live event stream's state, for the connection indicator. */
  events: StatusStore<EventStreamState>;
}

export type ClientResolution = { kind: 'ready'; client: ConsoleClient } | { kind: 'no-token' };

/** IPC events cannot drop the way a network stream can: the desktop stream is always up. */
const ALWAYS_CONNECTED: StatusStore<EventStreamState> = {
  getSnapshot: (() => {
    const state: EventStreamState = { status: 'connected', since: null, attempts: 0 };
    return () => state;
  })(),
  subscribe: () => () => undefined,
};

const OFFLINE: StatusStore<EventStreamState> = {
  getSnapshot: (() => {
    const state: EventStreamState = { status: 'disconnected', since: null, attempts: 0 };
    return () => state;
  })(),
  subscribe: () => () => undefined,
};

export function desktopClient(api: ConsoleApi): ConsoleClient {
  // The preload rejects with plain error data (contextBridge strips Error objects): revive codes.
  return { api: reviveBridgedErrors(api), mode: 'desktop', events: ALWAYS_CONNECTED };
}

export function browserClient(options: HttpTransportOptions): ConsoleClient {
  const transport = createHttpTransport(options);
  return { api: buildFacade(transport), mode: 'browser', events: transport.events ?? OFFLINE };
}

export function resolveClient(win: Window & typeof globalThis): ClientResolution {
  const preload = win[TRANSPORT.preloadGlobal];
  if (preload) return { kind: 'ready', client: desktopClient(preload) };
  const env: TokenEnv = {
    location: win.location,
    storage: win.sessionStorage,
    replaceUrl: (url) => win.history.replaceState(win.history.state, '', url),
  };
  const token = takeAccessToken(env);
  if (!token) return { kind: 'no-token' };
  return { kind: 'ready', client: browserClient({ baseUrl: win.location.origin, token }) };
}
