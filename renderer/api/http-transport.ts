/**
 * The browser-mode transport (electron/contract/transport.ts): `POST /api/call/<method>` with the
 * JSON argument as body and the access token in `X-DETS-Token`; the answer is always an envelope.
 * Anything that is not one (a proxy's HTML page, a dropped connection) becomes an error envelope
 * too, so the facade built on top rejects with a ConsoleError carrying a code, never a raw
 * TypeError. Every request omits credentials: no cookie grants access to the console, and
 * another local server's cookies for 127.0.0.1 have no business travelling here.
 */
import {
  ConsoleError,
  TRANSPORT,
  isErrorCode,
  type Envelope,
  type ErrorCode,
  type EventName,
  type MethodName,
  type Transport,
} from '../../electron/contract';
import { accessRefusal } from './access-refusal';
import { createEventStream, eventsUrl, type EventStream } from './event-stream';

export interface HttpTransportOptions {
  /** Origin of the headless host, e.g. `http://127.0.0.1:7300`. */
  baseUrl: string;
  /** The access token, sent in X-DETS-Token on every call, download and the event stream. */
  token: string;
  fetch?: typeof fetch;
  /** false: no live event stream (tests, CLI-like use). */
  liveEvents?: boolean;
  /**
   * The host answered 401 to a call, a download or the event stream: this page's token is stale
   * (the host restarted) or wrong. Called with the host's reason, once per refusal.
   */
  onUnauthorized?: (message: string) => void;
}

export interface HttpTransport extends Transport {
  readonly events: EventStream | null;
  /**
   * Fetches a one-time download the core prepared (`/api/download/<ticket>`) with the token
   * header, as a Blob; rejects with a ConsoleError (UNAUTHORIZED, NOT_FOUND for a spent or
   * expired ticket, INTERNAL when the host is unreachable).
   */
  download(path: string): Promise<Blob>;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_ARGUMENT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'UNKNOWN_METHOD',
  413: 'BAD_ARGUMENT',
};

function isEnvelope(value: unknown): value is Envelope<unknown> {
  if (!value || typeof value !== 'object') return false;
  const v = value as { ok?: unknown; error?: unknown };
  if (v.ok === true) return 'value' in v;
  if (v.ok !== false || !v.error || typeof v.error !== 'object') return false;
  const e = v.error as { code?: unknown; message?: unknown };
  return isErrorCode(e.code) && typeof e.message === 'string';
}

export function callUrl(baseUrl: string, method: MethodName): string {
  return new URL(TRANSPORT.callPathPrefix + method, baseUrl).toString();
}

export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const auth = { [TRANSPORT.tokenHeader]: options.token };
  const unreachable = (err: unknown) =>
    `Cannot reach the console host at ${options.baseUrl} (${err instanceof Error ? err.message : String(err)}). Is \`dets-console serve\` still running?`;
  /** The 401 rule (access-refusal.ts), applied to every answer: it tells the app, then the caller. */
  const refused = (status: number, text: string): string | null => {
    const reason = accessRefusal(status, text);
    if (reason !== null) options.onUnauthorized?.(reason);
    return reason;
  };
  const events =
    options.liveEvents === false
      ? null
      : createEventStream({
          url: eventsUrl(options.baseUrl),
          token: options.token,
          fetch: options.fetch,
          onUnauthorized: options.onUnauthorized,
        });

  return {
    events,
    async call(method, input) {
      let response: Response;
      try {
        response = await doFetch(callUrl(options.baseUrl, method), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...auth },
          body: input === undefined ? '' : JSON.stringify(input),
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch (err) {
        return { ok: false, error: { code: 'INTERNAL', message: unreachable(err) } };
      }
      let body: unknown;
      const text = await response.text().catch(() => '');
      refused(response.status, text);
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (isEnvelope(body)) return body;
      return {
        ok: false,
        error: {
          code: STATUS_CODES[response.status] ?? 'INTERNAL',
          message: `${method}: unexpected answer from the console host (HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''})`,
        },
      };
    },
    async download(path) {
      let response: Response;
      try {
        response = await doFetch(new URL(path, options.baseUrl).toString(), {
          headers: auth,
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch (err) {
        throw new ConsoleError('INTERNAL', unreachable(err));
      }
      if (response.ok) return response.blob();
      const text = await response.text().catch(() => '');
      const reason = refused(response.status, text);
      if (reason !== null) throw new ConsoleError('UNAUTHORIZED', reason);
      if (response.status === 404) {
        throw new ConsoleError('NOT_FOUND', 'The download has expired or was already taken: export again.');
      }
      throw new ConsoleError('INTERNAL', `The download failed (HTTP ${response.status}).`);
    },
    subscribe(event: EventName, listener: (payload: unknown) => void) {
      return events ? events.on(event, listener) : () => undefined;
    },
  };
}
