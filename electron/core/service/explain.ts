/**
 * What a failed exchange with the service probably means. The service's own errors are not
 * specified (spec 4.1, 7: "not shown"); the public guide answers free text such as 401
 * "Access credentials are invalid" (DESIGN.md), and the sandbox `{"error","detail"}`. So the
 * console keeps the raw text as the exchange's `error` and adds, when the cause is known from
 * what it sent and what came back, an explanation a person can act on.
 */
import type { Environment, Exchange } from '../../contract/schemas/service';
import type { ServiceResponse } from './http';

/** The guide's wording for a refused JWT. */
export const GUIDE_401_TEXT = 'Access credentials are invalid';

export interface ExplainContext {
  operation: Exchange['operation'];
  environment: Environment;
  url: string;
  response: ServiceResponse;
  /** The kid whose JWT went in CX-Authorization. */
  signingKid: string | null;
  /**
   * false when the console has no sign the signing kid is registered with the service (neither
   * the environment's active key nor a successful registration in the history): a 401 is then
   * most likely "register it first".
   */
  signingKidKnown: boolean;
  /** exp of the JWT sent, Unix seconds. */
  tokenExp: number | null;
  nowMs: number;
}

const quote = (s: string) => JSON.stringify(s);
const clip = (s: string, max = 300) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** The service's own words from an error body: `detail`/`message`/`error` of a JSON object, else the text. */
export function serviceWords(body: string): string | null {
  const text = body.trim();
  if (text === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      for (const key of ['detail', 'message', 'error_description', 'error']) {
        const v = record[key];
        if (typeof v === 'string' && v.trim() !== '') return clip(v.trim());
      }
    }
    if (typeof value === 'string') return clip(value);
  } catch {
    // free text, as the guide's errors are
  }
  if (/^\s*</.test(text)) return null; // an HTML error page says nothing useful here
  return clip(text);
}

function counterpartyPath(env: Environment): string {
  return `${env.base_url ?? '{base_url}'}/api/v1/counterparty/${env.counterparty_guid ?? '{counterparty_guid}'}`;
}

function clockNotes(ctx: ExplainContext): string[] {
  const notes: string[] = [];
  if (ctx.response.ok) {
    const date = Date.parse(ctx.response.headers['date'] ?? '');
    if (Number.isFinite(date)) {
      const skew = Math.round((date - ctx.nowMs) / 1000);
      // The Date header has one-second resolution and the answer took a moment: only a clear skew counts.
      if (Math.abs(skew) > 30) {
        notes.push(
          `the service's clock (its Date header) is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} this machine's`,
        );
      }
    }
  }
  if (ctx.tokenExp !== null && ctx.tokenExp * 1000 < ctx.nowMs) {
    notes.push(`the JWT sent had already expired (exp ${Math.round(ctx.nowMs / 1000 - ctx.tokenExp)} s ago)`);
  }
  return notes;
}

function explainRefusedJwt(ctx: ExplainContext, words: string | null): string {
  const env = ctx.environment;
  const guid = env.counterparty_guid ?? '{counterparty_guid}';
  const kid = ctx.signingKid;
  // The sandbox (and a service that says as much) names an unregistered kid outright.
  const saysUnregistered =
    words !== null && /not registered|unknown kid|kid\b[^.]*\b(unknown|not found)/i.test(words);
  if (kid !== null && (!ctx.signingKidKnown || saysUnregistered)) {
    const says = words ? ` The service says: ${words}` : '';
    if (kid === env.active_kid) {
      return (
        `kid ${quote(kid)}, the environment's active key, is ${saysUnregistered ? 'not' : 'perhaps not'} registered ` +
        `for counterparty ${guid}: set active_kid to the key registered at onboarding, or register this one ` +
        `with a key that is (PUT ${counterpartyPath(env)}/jwk/{jwk_guid}: updateJwk with signing_kid).${says}`
      );
    }
    const active = env.active_kid ? `, signed by the active key ${quote(env.active_kid)}` : '';
    return (
      `kid ${quote(kid)} may not be registered yet for counterparty ${guid}: register its JWK first ` +
      `(PUT ${counterpartyPath(env)}/jwk/{jwk_guid}${active}; the rotate action does this and then proves ` +
      `the key), then retry.${says}`
    );
  }
  const what =
    words === null
      ? 'The service refused the JWT in CX-Authorization (401).'
      : words.toLowerCase().includes(GUIDE_401_TEXT.toLowerCase())
        ? `The service refused the JWT in CX-Authorization (${quote(words)}, the guide's wording for any refused JWT).`
        : `The service refused the JWT in CX-Authorization: ${words}`;
  const causes = [
    `kid ${kid ? quote(kid) : '(none in the header)'} is not registered for counterparty ${guid} ` +
      `(list the registered keys: GET ${counterpartyPath(env)}/jwk)`,
    "this machine's clock is off (iat and exp are checked with about a minute of leeway)",
    'the JWT has expired, or lives longer than the service accepts (the sandbox: 1 hour)',
    `counterparty_guid ${guid} is not the counterparty the key was registered under`,
  ];
  if (ctx.operation === 'register-jwk' || ctx.operation === 'update-jwk') {
    causes.unshift(
      'registering a JWK must be signed by a key already registered (the active one), not by the new key',
    );
  }
  const notes = clockNotes(ctx);
  return `${what} Usual causes: ${causes.join('; ')}.${notes.length ? ` Noticed: ${notes.join('; ')}.` : ''}`;
}

/**
 * The explanation of an exchange that failed, or null when there is nothing to add.
 *
 * @example
 * explainExchange({ operation: 'authenticate', environment, url, response, signingKid: 'k2',
 *   signingKidKnown: false, tokenExp, nowMs: Date.now() });
 * // 'kid "k2" may not be registered yet for counterparty …: register its JWK first (PUT …)'
 */
export function explainExchange(ctx: ExplainContext): string | null {
  const env = ctx.environment;
  const response = ctx.response;
  const where = env.kind === 'sandbox' ? 'the sandbox' : `the service (environment ${quote(env.name)})`;
  let origin = ctx.url;
  let host = ctx.url;
  try {
    origin = new URL(ctx.url).origin;
    host = new URL(ctx.url).host;
  } catch {
    // keep the URL as it is
  }

  if (!response.ok) {
    switch (response.failure) {
      case 'refused':
        return env.kind === 'sandbox'
          ? `Nothing accepted the connection at ${origin}: is the sandbox running at ${origin}? ` +
              '(the desktop app and `dets-console serve` start it; `dets-console sandbox` runs it alone)'
          : `Nothing accepted the connection at ${origin}: is the service running at ${env.base_url}? ` +
              "Check the environment's base_url (host and port) and any VPN or tunnel it needs.";
      case 'not-found':
        return `The host ${host} could not be found: check the environment's base_url for a typo, and DNS or VPN.`;
      case 'timeout':
        return (
          `${where} at ${origin} did not answer in time: it is overloaded, or a firewall, proxy or VPN ` +
          'drops the connection. The request may still have been processed.'
        );
      case 'reset':
        return `The connection to ${origin} was cut before a complete answer: a proxy or load balancer in between, or the service restarting.`;
      case 'tls':
        return (
          `TLS with ${host} failed: the certificate is not trusted (self-signed, or a corporate proxy's), ` +
          'names another host, or base_url says https for a plain-http port.'
        );
      default:
        return null;
    }
  }

  const status = response.status;
  const words = serviceWords(response.body);
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) {
    const location = response.headers['location'];
    return (
      `The service answered ${status}, a redirect${location ? ` to ${location}` : ''}. The console does not ` +
      "follow redirects with a CX-Authorization token in them: set the environment's base_url to where it points " +
      '(http → https? a missing path prefix?).'
    );
  }
  if (status === 401) {
    if (ctx.operation === 'fetch-jwks') {
      return `The JWKS URL ${ctx.url} asks for credentials: the service's public keys (spec 4.1 #3) are public; check the environment's JWKS URL.`;
    }
    return explainRefusedJwt(ctx, words);
  }
  if (status === 403) {
    return `The service recognised the request but refused it (403)${words ? `: ${words}` : ''}. The counterparty may not be allowed this operation, or a gateway in front of the service blocks this address.`;
  }
  if (status === 404) {
    if (ctx.operation === 'fetch-jwks') {
      return `No JWK set at ${ctx.url} (404): check the environment's service_jwks_url, or its base_url when the URL is derived.`;
    }
    const onboarding =
      env.kind === 'sandbox'
        ? ' For the sandbox: onboard the bank on the Sandbox page (or POST /sandbox/v1/counterparties) and save the counterparty_guid it answers on the sandbox environment.'
        : '';
    return (
      `Not found (404)${words ? `: ${words}` : ''}. Either counterparty_guid ${env.counterparty_guid} is unknown to ` +
      `${where} at ${env.base_url}, or base_url is not the service's root (the console appends /api/v1/counterparty/…). ` +
      `The counterparty_guid comes from onboarding.${onboarding}`
    );
  }
  if (status === 409 && (ctx.operation === 'register-jwk' || ctx.operation === 'update-jwk')) {
    return `The service refused the registration as a conflict${words ? `: ${words}` : ''}. A kid names one key: if this kid is already registered under another jwk_guid, PUT it under that jwk_guid, or generate a key with a new kid.`;
  }
  if (status === 400 || status === 422) {
    return ctx.operation === 'register-jwk' || ctx.operation === 'update-jwk'
      ? `The service refused the body {"data": JWK}${words ? `: ${words}` : ''}. The JWK sent has exactly the spec's fields (2.1: alg, e, kid, kty, n, use).`
      : `The service refused the request as malformed${words ? `: ${words}` : ''}.`;
  }
  if (status === 405) {
    return `${ctx.url} does not accept this method (405): base_url probably points at something other than the service.`;
  }
  if (status === 429) {
    const retry = response.headers['retry-after'];
    return `The service is rate limiting this client (429)${retry ? `; it asks to retry after ${retry} s` : ''}.`;
  }
  if (status === 502 || status === 503 || status === 504) {
    return `A gateway in front of the service could not get an answer from it (${status}): the service is down or restarting; retry later.`;
  }
  if (status >= 500) {
    return `The service failed on its side (${status})${words ? `: ${words}` : ''}. Retry later; if it persists, send the service's operators this exchange (the curl command reproduces it).`;
  }
  return words ? `The service answered ${status}: ${words}` : null;
}
