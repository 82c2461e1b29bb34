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
  /** Browser mode without a token: the host's cookie carries the access (a second tab). */
  viaCookie?: boolean;
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
  return {
    api: buildFacade(transport),
    mode: 'browser',
    events: transport.events ?? OFFLINE,
    ...(options.token === null ? { viaCookie: true } : {}),
  };
}

export function resolveClient(win: Window & typeof globalThis): ClientResolution {
  const preload = win[TRANSPORT.preloadGlobal];
  if (preload) return { kind: 'ready', client: desktopClient(preload) };
  const env: TokenEnv = {
    location: win.location,
    storage: win.sessionStorage,
    replaceUrl: (url) => win.history.replaceState(win.history.state, '', url),
  };
  // Without a token (a second tab, a link opened in a new window) the page still loaded, so the
  // host's cookie let it in: calls and the event stream carry that cookie (issue 13 item 5). If
  // the host refuses it after all, the first call's 401 shows the access-link help.
  const token = takeAccessToken(env);
  if (!token && !/^https?:$/.test(win.location.protocol)) return { kind: 'no-token' };
  return { kind: 'ready', client: browserClient({ baseUrl: win.location.origin, token }) };
}
