/**
 * The browser-mode transport (electron/contract/transport.ts): `POST /api/call/<method>` with the
 * JSON argument as body and the access token in `X-DETS-Token`; the answer is always an envelope.
 * Anything that is not one (a proxy's HTML page, a dropped connection) becomes an error envelope
 * too, so the facade built on top rejects with a ConsoleError carrying a code, never a raw
 * TypeError.
 */
import {
  TRANSPORT,
  isErrorCode,
  type Envelope,
  type ErrorCode,
  type EventName,
  type MethodName,
  type Transport,
} from '../../electron/contract';
import { createEventStream, eventsUrl, type EventStream, type EventStreamOptions } from './event-stream';

export interface HttpTransportOptions {
  /** Origin of the headless host, e.g. `http://127.0.0.1:7300`. */
  baseUrl: string;
  /**
   * The access token, sent in X-DETS-Token; null in a tab opened without it, which relies on the
   * host's HttpOnly SameSite=Strict cookie set when the access link was first opened (issue 13, 5).
   */
  token: string | null;
  fetch?: typeof fetch;
  /** Omit to use the global EventSource; `null` disables live events (tests, CLI-like use). */
  EventSource?: EventStreamOptions['EventSource'] | null;
}

export interface HttpTransport extends Transport {
  readonly events: EventStream | null;
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
  const events =
    options.EventSource === null
      ? null
      : createEventStream({
          url: eventsUrl(options.baseUrl, options.token),
          EventSource: options.EventSource,
        });

  return {
    events,
    async call(method, input) {
      let response: Response;
      try {
        response = await doFetch(callUrl(options.baseUrl, method), {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            ...(options.token === null ? {} : { [TRANSPORT.tokenHeader]: options.token }),
          },
          body: input === undefined ? '' : JSON.stringify(input),
          credentials: 'same-origin',
          cache: 'no-store',
        });
      } catch (err) {
        return {
          ok: false,
          error: {
            code: 'INTERNAL',
            message: `Cannot reach the console host at ${options.baseUrl} (${err instanceof Error ? err.message : String(err)}). Is \`dets-console serve\` still running?`,
          },
        };
      }
      let body: unknown;
      const text = await response.text().catch(() => '');
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
    subscribe(event: EventName, listener: (payload: unknown) => void) {
      return events ? events.on(event, listener) : () => undefined;
    },
  };
}
