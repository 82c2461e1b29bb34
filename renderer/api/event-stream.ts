/**
 * Live events in browser mode: one EventSource on `GET /api/events?token=…` (Server-Sent
 * Events, one `event: <name>` per message), fanned out to subscribers by event name.
 *
 * The browser retries a dropped stream by itself (readyState CONNECTING); when the server
 * refuses it outright (e.g. the host restarted with a new token) the EventSource closes for
 * good, so we reopen it ourselves with a capped backoff. The status is an external store the
 * header's connection indicator reads with useSyncExternalStore.
 */
import { EVENT_NAMES, TRANSPORT, type EventName } from '../../electron/contract';

export type EventStreamStatus = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export interface EventStreamState {
  status: EventStreamStatus;
  /** When the stream last opened (ISO 8601), null before the first open. */
  since: string | null;
  /** Reconnect attempts since the last successful open. */
  attempts: number;
}

export interface StatusStore<T> {
  getSnapshot(): T;
  subscribe(onChange: () => void): () => void;
}

export interface EventStream extends StatusStore<EventStreamState> {
  subscribe(onChange: () => void): () => void;
  on(event: EventName, listener: (payload: unknown) => void): () => void;
  close(): void;
}

type EventSourceCtor = new (url: string) => EventSource;

export interface EventStreamOptions {
  url: string;
  EventSource?: EventSourceCtor | undefined;
  /** Backoff before reopening a closed stream, by attempt (ms). */
  backoff?: (attempt: number) => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 1_000 * 2 ** Math.max(0, attempt - 1));

/** The stream's URL; without a token the same-origin EventSource carries the host's cookie instead. */
export function eventsUrl(baseUrl: string, token: string | null): string {
  const url = new URL(TRANSPORT.eventsPath, baseUrl);
  if (token !== null) url.searchParams.set(TRANSPORT.tokenQuery, token);
  return url.toString();
}

export function createEventStream(options: EventStreamOptions): EventStream {
  const Ctor = options.EventSource ?? (globalThis as { EventSource?: EventSourceCtor }).EventSource;
  const backoff = options.backoff ?? defaultBackoff;
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const watchers = new Set<() => void>();
  let state: EventStreamState = { status: 'connecting', since: null, attempts: 0 };
  let source: EventSource | null = null;
  let timer: unknown = null;
  let closed = false;

  const set = (next: Partial<EventStreamState>) => {
    state = { ...state, ...next };
    for (const w of watchers) w();
  };

  const dispatch = (name: EventName, data: string) => {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return; // A malformed message is dropped; the stream itself stays up.
    }
    for (const l of listeners.get(name) ?? []) l(payload);
  };

  const open = () => {
    if (closed) return;
    if (!Ctor) {
      set({ status: 'disconnected' });
      return;
    }
    const es = new Ctor(options.url);
    source = es;
    es.onopen = () => set({ status: 'connected', since: new Date().toISOString(), attempts: 0 });
    es.onerror = () => {
      if (closed || source !== es) return;
      if (es.readyState === es.CLOSED || es.readyState === 2) {
        es.close();
        source = null;
        const attempts = state.attempts + 1;
        set({ status: 'disconnected', attempts });
        timer = setTimer(() => {
          timer = null;
          set({ status: 'reconnecting' });
          open();
        }, backoff(attempts));
      } else {
        set({ status: 'reconnecting', attempts: state.attempts + 1 });
      }
    };
    for (const name of EVENT_NAMES) {
      es.addEventListener(name, (msg) => dispatch(name, (msg as MessageEvent<string>).data));
    }
  };

  open();

  return {
    getSnapshot: () => state,
    subscribe(onChange) {
      watchers.add(onChange);
      return () => watchers.delete(onChange);
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => set.delete(listener);
    },
    close() {
      closed = true;
      if (timer !== null) clearTimer(timer);
      source?.close();
      source = null;
      set({ status: 'disconnected' });
    },
  };
}
