/**
 * What each operation expects of a 2xx answer. A 2xx that is not what the spec (or the guide)
 * promises is a failed exchange with an explanation, not a success: base_url may point at a
 * gateway page or another API. Pure functions of the body, tested on their own.
 */
import { keySetFromJwks, otherOrigin, parseJwksText } from '../jwt';
import { quote } from './target';

/** A judge's verdict on a 2xx answer; `jwkGuid` is the guid the service chose, when it said. */
export type Verdict = { ok: true; jwkGuid?: string } | { ok: false; error: string; explanation: string };

/**
 * The session_token of an authenticate answer (spec 2.3: `{"session_token": "…"}`), or null.
 *
 * @example
 * sessionTokenOf('{"session_token":"eyJ…"}'); // 'eyJ…'
 * sessionTokenOf('<html>'); // null
 */
export function sessionTokenOf(body: string): string | null {
  try {
    const value = JSON.parse(body) as { session_token?: unknown } | null;
    if (typeof value?.session_token === 'string' && value.session_token !== '') return value.session_token;
  } catch {
    // not JSON: no session_token
  }
  return null;
}

/** The verdict on an authenticate answer that has no session_token. */
export const NO_SESSION_TOKEN: Verdict = {
  ok: false,
  error: 'the answer has no session_token',
  explanation:
    'The service answered 2xx but not {"session_token": "…"} (spec 2.3): base_url may point at ' +
    'something other than the service (a gateway page, another API).',
};

/**
 * The guide's POST …/jwk answers `{guid}`: the jwk_guid the service chose. Any 2xx is a
 * registration that went through; the guid is taken when the body names one.
 *
 * @example
 * judgeRegistered('{"guid":"7d1c…"}'); // {ok: true, jwkGuid: '7d1c…'}
 * judgeRegistered(''); // {ok: true}
 */
export function judgeRegistered(body: string): Verdict {
  try {
    const value = JSON.parse(body) as { guid?: unknown } | null;
    if (typeof value?.guid === 'string') return { ok: true, jwkGuid: value.guid };
  } catch {
    // not JSON: still a 2xx, the registration went through
  }
  return { ok: true };
}

/**
 * The service's JWKS judged by the bank's own rules: same-origin redirects only (fetch-jwks.ts)
 * and the key-set rule (key-source.ts), so what fails here is what the bank endpoints would
 * leave out, and why.
 *
 * @example
 * judgeServiceJwks('https://svc.example/jwks', '{"keys": []}', 'https://svc.example/jwks'); // {ok: true}
 */
export function judgeServiceJwks(url: string, body: string, reachedUrl: string): Verdict {
  const other = otherOrigin(url, new URL(reachedUrl));
  if (other !== null) {
    return {
      ok: false,
      error: `JWKS URL ${url} ${other}`,
      explanation: `The bank endpoints would not take these keys: point the environment's service_jwks_url (or base_url) at the origin that serves the JWKS.`,
    };
  }
  try {
    const set = keySetFromJwks(parseJwksText(body, `JWKS from ${url}`), { source: 'jwks-url', url });
    const problems = [
      ...set.rejected.map((r) => r.reason),
      ...set.duplicates.map((kid) => `kid ${quote(kid)} appears more than once: it is ambiguous`),
    ];
    if (problems.length === 0) return { ok: true };
    return {
      ok: false,
      error: `${set.rejected.length} key(s) left out, ${set.duplicates.length} duplicate kid(s)`,
      explanation: `The bank endpoints use this JWKS as it is judged here: ${problems.join('; ')}. A token signed with a key left out fails the kid check (spec 2.2; DESIGN.md "Bank endpoints").`,
    };
  } catch (err) {
    return {
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      explanation:
        `${url} answered 2xx but not a JWK set ({"keys": […]}, spec 2.2): check the environment's ` +
        'service_jwks_url, or its base_url when the URL is derived.',
    };
  }
}
