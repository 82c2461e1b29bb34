/**
 * Fetching a JWK set (spec 4.1 endpoint 3, `GET /api/v1/.well-known/jwks.json`, or any JWKS URL
 * a person gives) with errors that say what went wrong and where: the URL and the network
 * error, the HTTP status, a body that is too big, not JSON, or JSON without a keys array.
 *
 * Threat model: the URL comes from the user or from settings, and the answer from a server we
 * do not control. So the wait is bounded (one timeout over the whole fetch, redirects included),
 * the body is bounded (read as a stream and cut at maxBytes, 1 MiB by default), only http(s) is
 * fetched, and the result is checked for shape before use. Redirects are followed by hand and
 * only within the URL's own origin (scheme, host and port), at most {@link JWKS_MAX_REDIRECTS}
 * hops and never back to a URL already visited: the keys are trusted because of where they were
 * asked for, so a redirect to another origin (an open redirect on the service's host, a
 * hijacked path) must not hand that trust to whoever answers there (DESIGN.md "Bank endpoints":
 * "redirects only to the same origin").
 */
import { ConsoleError } from '../../contract/errors';

export interface FetchJwksOptions {
  fetch: typeof fetch;
  /** Give up after this long; default 5000 ms. */
  timeoutMs?: number;
  /** Refuse a body larger than this; default 1 MiB. */
  maxBytes?: number;
  /** Cancels the fetch (e.g. the JWKS URL changed meanwhile). */
  signal?: AbortSignal;
}

/** A JWK set as fetched: `keys` is an array of objects (each JWK is checked by its user). */
export interface JwksDocument {
  keys: Record<string, unknown>[];
}

export const JWKS_TIMEOUT_MS = 5000;
export const JWKS_MAX_BYTES = 1024 * 1024;
/** Same-origin redirects followed before giving up. */
export const JWKS_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a JWKS, following redirects only within the URL's origin. Throws ConsoleError
 * `JWKS_FETCH_FAILED` (bad URL, network error, timeout, cancelled, HTTP status, a redirect to
 * another origin, a redirect loop or too many redirects, body too large) or `JWKS_INVALID` (not JSON, no keys array, a key not an object);
 * every message starts with the URL.
 *
 * @example
 * const jwks = await fetchJwks('http://127.0.0.1:7302/api/v1/.well-known/jwks.json', { fetch });
 * jwks.keys.map((k) => k.kid);
 */
export async function fetchJwks(url: string, options: FetchJwksOptions): Promise<JwksDocument> {
  const timeoutMs = options.timeoutMs ?? JWKS_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? JWKS_MAX_BYTES;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConsoleError('JWKS_FETCH_FAILED', `JWKS URL ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConsoleError('JWKS_FETCH_FAILED', `JWKS URL ${url} is not http(s)`);
  }

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const cancel = () => controller.abort();
  options.signal?.addEventListener('abort', cancel, { once: true });
  if (options.signal?.aborted) controller.abort();
  const stopped = () =>
    options.signal?.aborted
      ? `JWKS URL ${url}: the fetch was cancelled`
      : `JWKS URL ${url} did not answer within ${timeoutMs} ms`;
  try {
    let res: Response;
    let at = parsed;
    const visited = new Set([at.href]);
    for (let hops = 0; ; hops++) {
      try {
        res = await options.fetch(at, {
          method: 'GET',
          headers: { accept: 'application/json' },
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (err) {
        throw new ConsoleError(
          'JWKS_FETCH_FAILED',
          controller.signal.aborted
            ? stopped()
            : `JWKS URL ${url} could not be fetched: ${networkReason(err)}`,
        );
      }
      if (!REDIRECT_STATUSES.has(res.status)) break;
      await res.body?.cancel().catch(() => undefined);
      at = redirectTarget(url, at, res, hops, visited);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      const where = at.href === parsed.href ? '' : ` (redirected to ${at.href})`;
      throw new ConsoleError(
        'JWKS_FETCH_FAILED',
        `JWKS URL ${url}${where} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}, not 200`,
      );
    }
    const text = await readBounded(res, url, maxBytes, controller.signal, stopped);
    return parseJwksText(text, `JWKS from ${url}`, res.headers.get('content-type'));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
  }
}

/**
 * The one rule for where a JWKS may come from (DESIGN.md "Bank endpoints": "redirects only to
 * the same origin"): null when `reached` is on the origin of the JWKS URL asked for, else why
 * keys from there are not trusted. The Service page's raw "Fetch JWKS" judges by it too.
 */
export function otherOrigin(asked: string, reached: URL): string | null {
  const origin = new URL(asked).origin;
  if (reached.origin === origin) return null;
  return `redirected from origin ${origin} to another origin, ${reached.origin} (${reached.href}); a JWKS is only trusted from its own origin`;
}

/**
 * Where a redirect answer points, when it may be followed: same origin as `url` (the JWKS URL
 * asked for), a URL not visited yet, and at most JWKS_MAX_REDIRECTS hops. Throws otherwise.
 */
function redirectTarget(url: string, at: URL, res: Response, hops: number, visited: Set<string>): URL {
  const fail = (why: string) =>
    new ConsoleError('JWKS_FETCH_FAILED', `JWKS URL ${url} ${why}: not followed, no keys taken from there`);
  const location = res.headers.get('location');
  if (!location) throw fail(`answered HTTP ${res.status} without a Location`);
  let next: URL;
  try {
    next = new URL(location, at);
  } catch {
    throw fail(`redirected to ${JSON.stringify(location)}, which is not a URL`);
  }
  const other = otherOrigin(url, next);
  if (other !== null) throw fail(other);
  if (visited.has(next.href)) throw fail(`redirects in a loop (back to ${next.href})`);
  if (hops + 1 > JWKS_MAX_REDIRECTS) throw fail(`redirected more than ${JWKS_MAX_REDIRECTS} times`);
  visited.add(next.href);
  return next;
}

/**
 * Checks that text is a JWK set: JSON, an object, a `keys` array of objects. Throws
 * ConsoleError `JWKS_INVALID` whose message starts with `what` ("JWKS from http://…").
 */
export function parseJwksText(text: string, what: string, contentType?: string | null): JwksDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const ct = contentType ? ` (content-type ${contentType})` : '';
    const why = err instanceof Error ? err.message : String(err);
    throw new ConsoleError('JWKS_INVALID', `${what} is not JSON${ct}: ${why}`);
  }
  return checkJwksShape(value, what);
}

/** Checks a parsed value is `{keys: [object, …]}`; throws ConsoleError `JWKS_INVALID`. */
export function checkJwksShape(value: unknown, what: string): JwksDocument {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConsoleError('JWKS_INVALID', `${what} is JSON but not an object with a "keys" array`);
  }
  const keys = (value as { keys?: unknown }).keys;
  if (keys === undefined) {
    throw new ConsoleError('JWKS_INVALID', `${what} is JSON without a "keys" array: not a JWK set`);
  }
  if (!Array.isArray(keys)) throw new ConsoleError('JWKS_INVALID', `${what}: "keys" is not an array`);
  keys.forEach((k, i) => {
    if (k === null || typeof k !== 'object' || Array.isArray(k)) {
      throw new ConsoleError('JWKS_INVALID', `${what}: keys[${i}] is not a JWK object`);
    }
  });
  return { keys: keys as Record<string, unknown>[] };
}

async function readBounded(
  res: Response,
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  stopped: () => string,
): Promise<string> {
  const tooBig = () =>
    new ConsoleError(
      'JWKS_FETCH_FAILED',
      `JWKS URL ${url} answered more than ${maxBytes} bytes: not a JWK set`,
    );
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooBig();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooBig();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof ConsoleError) throw err;
    throw new ConsoleError(
      'JWKS_FETCH_FAILED',
      signal.aborted
        ? stopped().replace('did not answer', 'did not finish its answer')
        : `JWKS URL ${url}: reading the answer failed: ${networkReason(err)}`,
    );
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ConsoleError('JWKS_INVALID', `JWKS from ${url} is not UTF-8 text`);
  }
}

/** undici hides the useful part in `cause` ("connect ECONNREFUSED 127.0.0.1:9"). */
function networkReason(err: unknown): string {
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof Error && cause.message) return cause.message;
  if (cause && typeof cause === 'object' && 'code' in cause) return String((cause as { code: unknown }).code);
  return err instanceof Error ? err.message : String(err);
}
