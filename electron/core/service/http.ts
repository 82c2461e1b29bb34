/**
 * One request to the service, measured and never thrown: what was sent, what came back (status,
 * headers, body as text), how long it took, or why nothing came back. Goes through the core's
 * injected `fetch` (CoreOptions.fetch), like every other outgoing request.
 *
 * Threat model: the answer comes from a server we do not control, so the wait is bounded
 * (`timeoutMs`, 10 s by default) and the body is cut at MAX_BODY_BYTES. The bank's JWT travels in
 * CX-Authorization, so calls that carry it do not follow redirects (a redirect to another host
 * would hand it the token); the 3xx is reported and explained instead.
 */

export const SERVICE_TIMEOUT_MS = 10_000;
/**
 * Answers are kept (in the exchange history) up to this size: every answer of the service's
 * endpoints is a few hundred bytes to a few KiB, so a longer one is not the service's anyway.
 */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ServiceRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body: string | null;
  /** Follow redirects (only for requests that carry no credential, like the JWKS). */
  followRedirects: boolean;
}

export type NetworkFailure = 'refused' | 'not-found' | 'timeout' | 'reset' | 'tls' | 'other';

export type ServiceResponse =
  | {
      ok: true;
      status: number;
      /** Where the answer came from: the request's URL, or the last redirect's when followed. */
      url: string;
      headers: Record<string, string>;
      body: string;
      truncated: boolean;
      durationMs: number;
    }
  | { ok: false; failure: NetworkFailure; message: string; durationMs: number };

/**
 * Sends `request` with `fetchImpl`; resolves with the answer or the reason there was none.
 *
 * @example
 * const r = await sendServiceRequest(fetch, { method: 'GET', url, headers: {}, body: null, followRedirects: true });
 * if (!r.ok && r.failure === 'refused') console.log('nothing listens there');
 */
export async function sendServiceRequest(
  fetchImpl: typeof fetch,
  request: ServiceRequest,
  timeoutMs = SERVICE_TIMEOUT_MS,
): Promise<ServiceResponse> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const timeout = (): ServiceResponse => ({
    ok: false,
    failure: 'timeout',
    message: `no complete answer within ${timeoutMs} ms; gave up`,
    durationMs: elapsed(),
  });
  try {
    let res: Response;
    try {
      res = await fetchImpl(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== null ? { body: request.body } : {}),
        redirect: request.followRedirects ? 'follow' : 'manual',
        signal: controller.signal,
      });
    } catch (err) {
      if (timedOut) return timeout();
      const { failure, message } = describeNetworkError(err);
      return { ok: false, failure, message, durationMs: elapsed() };
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      headers[name] = value;
    });
    let body: { body: string; truncated: boolean };
    try {
      body = await readText(res);
    } catch (err) {
      if (timedOut) return timeout();
      const { message } = describeNetworkError(err);
      return {
        ok: false,
        failure: 'reset',
        message: `HTTP ${res.status}, then the answer broke off: ${message}`,
        durationMs: elapsed(),
      };
    }
    return {
      ok: true,
      status: res.status,
      url: res.url || request.url,
      headers,
      ...body,
      durationMs: elapsed(),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function readText(res: Response): Promise<{ body: string; truncated: boolean }> {
  if (!res.body) return { body: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > MAX_BODY_BYTES) {
      chunks.push(value.subarray(0, MAX_BODY_BYTES - total));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    total += value.byteLength;
    chunks.push(value);
  }
  return { body: Buffer.concat(chunks).toString('utf8'), truncated };
}

/** undici hides the useful part in `cause` ("connect ECONNREFUSED 127.0.0.1:9"). */
function describeNetworkError(err: unknown): { failure: NetworkFailure; message: string } {
  const outer = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  const code =
    cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  const inner = cause instanceof Error && cause.message ? cause.message : code;
  const message = inner && inner !== outer ? `${outer}: ${inner}` : outer;
  let failure: NetworkFailure = 'other';
  if (code === 'ECONNREFUSED') failure = 'refused';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') failure = 'not-found';
  else if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') failure = 'timeout';
  else if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') failure = 'reset';
  else if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code) || /certificate/i.test(inner)) {
    failure = 'tls';
  }
  return { failure, message };
}

/** Quotes one word for a POSIX shell: 'it'\''s'. */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The request as a curl command a person can paste into a terminal: method, URL, every header
 * sent (CX-Authorization included: a short-lived credential the user already sees; no private
 * key material ever goes into a request) and the body.
 *
 * @example
 * toCurl({ method: 'POST', url, headers: { 'CX-Authorization': token }, body: null });
 * // curl -sS -X POST 'http://…/jwk/authenticate' -H 'CX-Authorization: eyJ…'
 */
export function toCurl(request: Pick<ServiceRequest, 'method' | 'url' | 'headers' | 'body'>): string {
  const parts = ['curl', '-sS'];
  if (request.method !== 'GET') parts.push('-X', request.method);
  parts.push(shellQuote(request.url));
  for (const [name, value] of Object.entries(request.headers))
    parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== null) parts.push('--data-raw', shellQuote(request.body));
  return parts.join(' ');
}
