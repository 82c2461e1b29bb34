/**
 * Picks how this page talks to the core: the desktop app's preload facade when it is there,
 * else the browser-mode HTTP transport of the headless host. The rest of the renderer sees only
 * a `ConsoleClient` and never cares which.
 */
import { TRANSPORT, buildFacade, reviveBridgedErrors, type ConsoleApi } from '../../electron/contract';
import { followDownload, saveBlob } from '../shared/download';
import { forgetAccessToken, takeAccessToken, type TokenStorage } from './access-token';
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
  /**
   * Hands a one-time download the core prepared (`/api/download/<ticket>`) to the browser's save
   * flow. Browser mode fetches it with the token header (a plain link could not carry it) and
   * passes the bytes on as a Blob, unread; the desktop app follows the link to its own protocol.
   */
  download(path: string, filename: string): Promise<void>;
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
  return {
    api: reviveBridgedErrors(api),
    mode: 'desktop',
    events: ALWAYS_CONNECTED,
    download: async (path, filename) => followDownload(path, filename),
  };
}

export function browserClient(options: HttpTransportOptions): ConsoleClient {
  const transport = createHttpTransport(options);
  return {
    api: buildFacade(transport),
    mode: 'browser',
    events: transport.events ?? OFFLINE,
    download: async (path, filename) => saveBlob(await transport.download(path), filename),
  };
}

/** The origin's localStorage, or null where the browser denies it (reading it can throw). */
function originStorage(win: Window): TokenStorage | null {
  try {
    return win.localStorage;
  } catch {
    return null;
  }
}

/**
 * The client this page uses: the preload's facade in the desktop app; else browser mode with
 * the token from the URL or this origin's storage (access-token.ts), or `no-token` when there
 * is none (a fresh browser that never opened the access link). `onUnauthorized` hears every
 * 401 from the host, after the refused token has been forgotten.
 */
export function resolveClient(
  win: Window & typeof globalThis,
  onUnauthorized: (message: string) => void = () => undefined,
): ClientResolution {
  const preload = win[TRANSPORT.preloadGlobal];
  if (preload) return { kind: 'ready', client: desktopClient(preload) };
  const storage = originStorage(win);
  const token = takeAccessToken({
    location: win.location,
    storage,
    replaceUrl: (url) => win.history.replaceState(win.history.state, '', url),
  });
  if (token === null) return { kind: 'no-token' };
  const refused = (message: string) => {
    forgetAccessToken(storage, token);
    onUnauthorized(message);
  };
  return {
    kind: 'ready',
    client: browserClient({ baseUrl: win.location.origin, token, onUnauthorized: refused }),
  };
}
