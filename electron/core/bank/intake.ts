/**
 * The bank endpoints' request intake (DESIGN.md "Bank endpoints"): what a request's headers are
 * recorded as, how long a callback may wait for the service JWKS, how a notification's body is
 * judged, and the event of a request refused for its Origin header. bank.ts routes and answers;
 * these rules live here, apart from the answer's judging.
 *
 * Threat model: everything a request carries is untrusted and may be hostile (any size up to the
 * listener's limits, any bytes). Nothing here throws on it; each refusal says what is wrong.
 */
import type { IncomingMessage } from 'node:http';
import { GUID_PATTERN } from '../common';
import { blankEvent, type NewEvent } from '../store';
import { ORIGIN_CHECK_ID, type RefusedRequest } from '../http';

/**
 * A callback waiting for a JWKS fetch is answered by 900 ms after it arrived at the latest
 * (DESIGN.md "Bank endpoints"), so the answer reaches the service inside its 1 s (spec 4.2, 8)
 * even over a real network.
 */
export const CALLBACK_ANSWER_BY_MS = 900;
/**
 * How long after its arrival a callback waits for a JWKS fetch: 150 ms short of
 * {@link CALLBACK_ANSWER_BY_MS}, so a timer that fires late on a busy event loop (tens of ms on
 * a loaded 2-core machine) and the writing of the 401 still fit before it. A fetch that cannot
 * start before then is not waited for at all (jwt/jwks-client.ts): the callback is answered at
 * once, and the fetch it asked for still happens at the next slot.
 */
export const KID_WAIT_MS = 750;
/**
 * How long after its arrival a routed request waits for the attached laptop's answer (issue 30
 * item 3): the same margin as {@link KID_WAIT_MS}, so that when the laptop is late the hub's own
 * answer (or, for a notification, its commit) still goes out by {@link CALLBACK_ANSWER_BY_MS}.
 */
export const RELAY_WAIT_MS = KID_WAIT_MS;
/** Why a callback stops waiting, as the JWKS client's detail says it. */
export const KID_WAIT_NOTE = `a callback is answered by ${CALLBACK_ANSWER_BY_MS} ms after it arrives, inside the service's 1 s budget`;

/** Replays mark their request with this header so the replay can find its event. */
export const REPLAY_HEADER = 'x-dets-replay';
const MASKED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'set-cookie']);

/**
 * A request's headers as an event records them: credentials masked, repeated headers joined, the
 * replay marker left out. The event store bounds their sizes (http/bounds.ts).
 */
export function recordHeaders(raw: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined || name === REPLAY_HEADER) continue;
    out[name] = MASKED_HEADERS.has(name) ? '<masked>' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const SHAPE = '{"transaction_id": "<uuid>"}';

/** A notification body judged: its transaction_id, or what is wrong with it (and what it carried). */
export type NotificationBody =
  | { ok: true; id: string; text: string }
  | { ok: false; detail: string; id: string | null; text: string | null };

/**
 * Judges a notification's body by the body alone (DESIGN.md "Bank endpoints": "body must be JSON
 * `{"transaction_id": "<uuid>"}` whatever the Content-Type (absent, text/plain and
 * application/json alike: spec 4.3 names none)"): UTF-8, JSON, an object, a transaction_id that
 * is a UUID string (spec 2.7). Other members are allowed.
 *
 * @example
 * judgeNotificationBody(Buffer.from('{"transaction_id":"7d6f…"}')); // { ok: true, id: '7d6f…', text }
 */
export function judgeNotificationBody(bytes: Buffer): NotificationBody {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, detail: 'the body is not valid UTF-8', id: null, text: null };
  }
  const bad = (detail: string, id: string | null = null): NotificationBody => ({
    ok: false,
    detail,
    id,
    text,
  });
  if (bytes.length === 0) return bad(`the body is empty; a notification is ${SHAPE} (spec 2.7)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return bad(`the body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return bad(`the body is JSON but not an object; a notification is ${SHAPE} (spec 2.7)`);
  }
  const raw = value as Record<string, unknown>;
  if (!Object.hasOwn(raw, 'transaction_id')) return bad('the body has no transaction_id (spec 2.7)');
  if (typeof raw.transaction_id !== 'string')
    return bad('transaction_id is not a string (spec 2.7: a UUID string)');
  if (!GUID_PATTERN.test(raw.transaction_id)) {
    const shown = raw.transaction_id.slice(0, 100);
    return bad(`transaction_id ${JSON.stringify(shown)} is not a UUID (spec 2.7)`, shown);
  }
  return { ok: true, id: raw.transaction_id, text };
}

/**
 * The event of a request refused for its Origin header (http/origin.ts) with failed_check
 * `origin` and status 403: a callback, a notification (`rejected`) or, for the sandbox's
 * listener, a trace. The event store keeps it as a compact record under the refused cap
 * (store/records.ts storedAsRefused), so web pages cannot fill any other class.
 */
export function originRefusedEvent(r: RefusedRequest, kind: 'callback' | 'notification' | 'trace'): NewEvent {
  const { refusal } = r;
  return {
    ...blankEvent(kind, new Date(r.at).toISOString()),
    path: r.path,
    method: r.method,
    remote: r.remote,
    status: refusal.status,
    failed_check: ORIGIN_CHECK_ID,
    ...(kind === 'notification' ? { outcome: 'rejected' as const } : {}),
    duration_ms: 0,
    request: { method: r.method, url: r.url, headers: recordHeaders(r.headers), body: null },
    response: {
      status: refusal.status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ error: refusal.error, detail: refusal.detail }),
    },
  };
}
