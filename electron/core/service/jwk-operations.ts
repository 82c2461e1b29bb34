/**
 * Endpoint 1 of the service and the guide's extra jwk endpoints (spec 4.1 #1, DESIGN.md
 * "service client"): register (POST) or update (PUT) a public JWK, list the registered ones,
 * fetch the service's own JWKS. Each is one recorded exchange (perform.ts).
 */
import { randomUUID } from 'node:crypto';
import type { KeyInfo, SpecJwk } from '../../contract/schemas/keys';
import type { Exchange } from '../../contract/schemas/service';
import type { ClientContext } from './client-context';
import { judgeRegistered, judgeServiceJwks } from './judges';
import { perform, signedHeaders } from './perform';
import { activeKid, signingKey, signManagement } from './signing';
import { requireTarget, type Target } from './target';

/**
 * The public JWK with exactly the spec's six fields (2.1), picked one by one so nothing else a
 * KeyInfo might carry one day can reach the wire.
 *
 * @example
 * specJwk(key); // {alg: 'RS256', e: 'AQAB', kid: 'bank-2026', kty: 'RSA', n: '…', use: 'sig'}
 */
export function specJwk(key: KeyInfo): SpecJwk {
  const { alg, e, kid, kty, n, use } = key.public_jwk;
  return { alg, e, kid, kty, n, use };
}

/**
 * Sends the public JWK of `kid`, signed by `signingKid`: PUT …/jwk/{jwk_guid} (a new guid when
 * none is given) or POST …/jwk (the service chooses the guid and answers it).
 *
 * @example
 * await sendJwk(ctx, target, { via: 'put', kid: 'next', signingKid: 'current' });
 */
export async function sendJwk(
  ctx: ClientContext,
  target: Target,
  jwk: { via: 'put' | 'post'; kid: string; signingKid: string; jwkGuid?: string },
): Promise<Exchange> {
  const { via, kid, signingKid } = jwk;
  const data = specJwk(await signingKey(ctx, kid, 'the key to register', target.env));
  const signed = await signManagement(ctx, signingKid, target.env);
  const guid = via === 'put' ? (jwk.jwkGuid ?? randomUUID()) : null;
  const base = `${target.base}/api/v1/counterparty/${target.guid}/jwk`;
  return perform(ctx, {
    operation: via === 'put' ? 'update-jwk' : 'register-jwk',
    env: target.env,
    target,
    request: {
      method: via === 'put' ? 'PUT' : 'POST',
      url: via === 'put' ? `${base}/${guid}` : base,
      headers: signedHeaders(signed.token, true),
      body: JSON.stringify({ data }), // spec 2.1: {data: JWK}
      followRedirects: false,
    },
    signingKid,
    tokenExp: signed.exp,
    jwkKid: kid,
    jwkGuid: guid,
    ...(via === 'post' ? { judge: judgeRegistered } : {}),
  });
}

/** GET …/jwk, signed by the active key: what the service has registered for the counterparty. */
export async function listJwks(ctx: ClientContext): Promise<Exchange> {
  const target = requireTarget(await ctx.options.environments.get());
  const signingKid = activeKid(target.env, undefined, 'kid');
  const signed = await signManagement(ctx, signingKid, target.env);
  return perform(ctx, {
    operation: 'list-jwks',
    env: target.env,
    target,
    request: {
      method: 'GET',
      url: `${target.base}/api/v1/counterparty/${target.guid}/jwk`,
      headers: signedHeaders(signed.token, false),
      body: null,
      followRedirects: false,
    },
    signingKid,
    tokenExp: signed.exp,
  });
}

/** GET the service's JWKS (unsigned), judged by the bank endpoints' own rules. */
export async function fetchJwks(ctx: ClientContext): Promise<Exchange> {
  const env = await ctx.options.environments.get();
  if (env.effective_jwks_url === null) requireTarget(env); // explains the missing base_url
  const url = env.effective_jwks_url as string;
  return perform(ctx, {
    operation: 'fetch-jwks',
    env,
    target: null,
    request: {
      method: 'GET',
      url,
      headers: { Accept: 'application/json' },
      body: null,
      followRedirects: true,
    },
    signingKid: null,
    tokenExp: null,
    judge: (body, reached) => judgeServiceJwks(url, body, reached),
  });
}
