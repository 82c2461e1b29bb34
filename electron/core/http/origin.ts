/**
 * Requests from web pages are refused (DESIGN.md "Bank endpoints": "Requests that carry an
 * `Origin` header (only browsers send one; the service never does) are refused with 403 and kept
 * as compact refused records, on the bank endpoints and on the sandbox alike, so a web page
 * cannot reach them"). One rule for both listeners: the bank endpoints (bank/bank.ts) and the
 * sandbox (sandbox/sandbox.ts) ask this module.
 *
 * Threat model: any page open in the engineer's browser can send requests to 127.0.0.1 ports;
 * with `mode: 'no-cors'` a POST needs no preflight, so without this rule a page on another
 * origin could rotate the sandbox's signing key, onboard counterparties, make the sandbox call
 * URLs of its choosing, or fill the event store's caps with notifications. A browser always adds
 * `Origin` to such a request (every non-GET/HEAD request, and every CORS request), and no
 * script can remove it. The service, curl and the console's own clients (Node's fetch, node:http)
 * send none. A cross-origin GET made without CORS (an `<img>`) carries no Origin: it can only
 * read what the GET routes answer to anyone and, on the bank, adds a compact record under the
 * refused cap (no X-Session-ID: `present`).
 */
import type { IncomingMessage } from 'node:http';

/** The failed_check of a request refused for its Origin header. */
export const ORIGIN_CHECK_ID = 'origin';
/** The `error` of the JSON answer. */
export const ORIGIN_ERROR = 'origin_refused';

export interface OriginRefusal {
  status: 403;
  error: typeof ORIGIN_ERROR;
  detail: string;
}

/**
 * The refusal for a request that carries an Origin header, or null when it carries none.
 *
 * @example
 * const refused = originRefusal(req);
 * if (refused) return sendJson(res, refused.status, { error: refused.error, detail: refused.detail });
 */
export function originRefusal(req: Pick<IncomingMessage, 'headers'>): OriginRefusal | null {
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  const shown = origin.length > 100 ? `${origin.slice(0, 100)}…` : origin;
  return {
    status: 403,
    error: ORIGIN_ERROR,
    detail: `the request carries an Origin header (${JSON.stringify(shown)}): only a web browser sends one, and the service never does, so requests from web pages are refused (DESIGN.md "Bank endpoints")`,
  };
}

/** A request refused for its Origin header, as a listener hands it on to be recorded. */
export interface RefusedRequest {
  refusal: OriginRefusal;
  /** When it arrived (ms since the epoch). */
  at: number;
  method: string;
  /** The request target as received (path and query). */
  url: string;
  /** The path alone. */
  path: string;
  remote: string | null;
  headers: IncomingMessage['headers'];
}

/**
 * What is kept of a refused request until its event is built (bank/intake.ts originRefusedEvent).
 *
 * @example
 * onRefused(refusedRequest(req, refused, Date.now()));
 */
export function refusedRequest(req: IncomingMessage, refusal: OriginRefusal, at: number): RefusedRequest {
  const url = req.url ?? '/';
  return {
    refusal,
    at,
    method: req.method ?? 'GET',
    url,
    path: url.split('?', 1)[0] ?? '/',
    remote: req.socket.remoteAddress ?? null,
    headers: req.headers,
  };
}
