/**
 * Live events in browser mode: `GET /api/events` (Server-Sent Events, one `event: <name>` per
 * message), fanned out to subscribers by event name.
 *
 * The stream is read with fetch and a ReadableStream reader, not EventSource: EventSource cannot
 * send a header, and the access token travels only in X-DETS-Token (no cookie and no query
 * grants access, DESIGN.md "Architecture"). So this module does what EventSource did:
 * - a dropped stream or an unreachable host is retried after the host's `retry:` interval,
 *   growing with each failed attempt (status `reconnecting`);
 * - a stream the host refuses (any other status) is reopened with a capped backoff (status
 *   `disconnected` meanwhile);
 * - a 401 (the host restarted with a new token, or the stored token is stale) ends the stream
 *   for good and reports it, so the app can show the "open the link" page.
 * The status is an external store the header's connection indicator reads with
 * useSyncExternalStore.
 */
import { EVENT_NAMES, TRANSPORT, type EventName } from '../../electron/contract';
import { accessRefusal } from './access-refusal';
import { createSseParser } from './sse-parser';

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

export interface EventStreamOptions {
  url: string;
  /** The access token, sent in the X-DETS-Token header. */
  token: string;
  fetch?: typeof fetch | undefined;
  /** The host refused the token (401): the stream has stopped for good; `message` says why. */
  onUnauthorized?: ((message: string) => void) | undefined;
  /** Backoff before reopening a closed stream, by attempt (ms). */
  backoff?: (attempt: number) => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 1_000 * 2 ** Math.max(0, attempt - 1));
/** Until the host sends its own `retry:` (it sends 2 s first thing): what EventSource would use. */
const DEFAULT_RETRY_MS = 3_000;
const KNOWN = new Set<string>(EVENT_NAMES);

/** The stream's URL: no token in it, ever (the header carries it). */
export function eventsUrl(baseUrl: string): string {
  return new URL(TRANSPORT.eventsPath, baseUrl).toString();
}

/** Hands a message to the listeners of its event; unknown events and malformed JSON are dropped. */
function dispatch(listeners: Map<EventName, Set<(payload: unknown) => void>>, name: string, data: string) {
  if (!KNOWN.has(name)) return;
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    return; // A malformed message is dropped; the stream itself stays up.
  }
  for (const l of listeners.get(name as EventName) ?? []) l(payload);
}

/** Reads the live stream to its end (the host closed it, the connection dropped, or close()). */
async function readToEnd(
  response: Response,
  stillOwner: () => boolean,
  onMessage: (event: string, data: string) => void,
  onRetryMs: (ms: number) => void,
): Promise<void> {
  const parser = createSseParser((m) => onMessage(m.event, m.data), onRetryMs);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !stillOwner()) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
  } catch {
    // The connection dropped (or close() aborted it): handled by the caller.
  }
}

/**
 * Opens the stream at once and keeps it open until `close()`.
 *
 * @example
 * const stream = createEventStream({ url: eventsUrl(location.origin), token });
 * const off = stream.on('app.noticed', (notice) => console.log(notice));
 */
export function createEventStream(options: EventStreamOptions): EventStream {
  const doFetch = options.fetch ?? globalThis.fetch?.bind(globalThis);
  const backoff = options.backoff ?? defaultBackoff;
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const watchers = new Set<() => void>();
  let state: EventStreamState = { status: 'connecting', since: null, attempts: 0 };
  let current: AbortController | null = null;
  let timer: unknown = null;
  let retryMs = DEFAULT_RETRY_MS;
  let closed = false;

  const set = (next: Partial<EventStreamState>) => {
    state = { ...state, ...next };
    for (const w of watchers) w();
  };

  /** Tries again later: `reconnecting` after a drop, `disconnected` after a refusal. */
  const retry = (status: 'reconnecting' | 'disconnected') => {
    const attempts = state.attempts + 1;
    const delay = status === 'reconnecting' ? Math.max(retryMs, backoff(attempts)) : backoff(attempts);
    set({ status, attempts });
    timer = setTimer(() => {
      timer = null;
      set({ status: 'reconnecting' });
      void open();
    }, delay);
  };

  const open = async () => {
    if (closed) return;
    if (!doFetch) {
      set({ status: 'disconnected' });
      return;
    }
    const owner = new AbortController();
    current = owner;
    let response: Response;
    try {
      response = await doFetch(options.url, {
        headers: { [TRANSPORT.tokenHeader]: options.token, Accept: 'text/event-stream' },
        // No cookie goes out: none grants access, and other local servers' cookies are theirs.
        credentials: 'omit',
        cache: 'no-store',
        signal: owner.signal,
      });
    } catch {
      if (current === owner && !closed) retry('reconnecting'); // the host is not reachable (yet)
      return;
    }
    if (current !== owner || closed) return;
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !response.body || !type.startsWith('text/event-stream')) {
      const refusal = accessRefusal(response.status, await response.text().catch(() => ''));
      if (current !== owner || closed) return;
      if (refusal !== null) {
        current = null;
        set({ status: 'disconnected' });
        options.onUnauthorized?.(refusal);
        return;
      }
      retry('disconnected');
      return;
    }
    set({ status: 'connected', since: new Date().toISOString(), attempts: 0 });
    await readToEnd(
      response,
      () => current === owner,
      (name, data) => dispatch(listeners, name, data),
      (ms) => (retryMs = ms),
    );
    if (current === owner && !closed) retry('reconnecting');
  };

  void open();

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
      timer = null;
      current?.abort();
      current = null;
      set({ status: 'disconnected' });
    },
  };
}
