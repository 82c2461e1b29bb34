/**
 * The service client (spec 4.1 and the guide's extra jwk endpoints, DESIGN.md): every call goes
 * to the ACTIVE environment, carries a bank JWT signed by one of the console's keys in
 * CX-Authorization (spec 5.1), and is recorded as an exchange (request, answer, timing, the raw
 * error text, an explanation when the cause is known, a curl command), appended to the history
 * and emitted as `service.exchanged`. A refusal by the service is an exchange with ok = false,
 * never a thrown error; only missing configuration (no base_url, counterparty_guid or key) is
 * thrown, as a ConsoleError saying what to set and where.
 *
 * Threat model: the private keys never leave the key store (it signs; we get a compact JWS).
 * What is recorded and shown (tokens, public JWKs, the service's answers) is what the user can
 * already see; the history file is 0600.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { KeyInfo, SpecJwk } from '../../contract/schemas/keys';
import {
  AuthenticateInput,
  JwkOperationInput,
  RotateInput,
  type Environment,
  type Exchange,
} from '../../contract/schemas/service';
import {
  decodeCompact,
  inspectToken,
  keySetFromJwks,
  otherOrigin,
  parseJwksText,
  SIGN_IN_FLOW,
} from '../jwt';
import { badArgument, invalidArgument } from '../common';
import { explainExchange } from './explain';
import { ExchangeHistory } from './history';
import { MAX_BODY_BYTES, sendServiceRequest, SERVICE_TIMEOUT_MS, toCurl, type ServiceRequest } from './http';
import { runRotation, type ClientInternals } from './rotation';
import { authenticateUrl, envLabel, quote, requireTarget, saveHint, type Target } from './target';
import type { ServiceClient, ServiceOptions } from './types';

/** The sub of JWTs the console signs for key management when the environment has no default_sub. */
export const MANAGEMENT_SUB = 'dets-console';
/** Lifetime of those JWTs, in seconds. */
const MANAGEMENT_TTL_SECONDS = 300;

type Operation = Exchange['operation'];

/** How far back the history is searched for an earlier registration of a kid. */
const HISTORY_LOOKBACK = 1000;

function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw invalidArgument(parsed.error, what);
}

/**
 * The public JWK with exactly the spec's six fields (2.1), picked one by one so nothing else a
 * KeyInfo might carry one day can reach the wire.
 */
export function specJwk(key: KeyInfo): SpecJwk {
  const { alg, e, kid, kty, n, use } = key.public_jwk;
  return { alg, e, kid, kty, n, use };
}

/**
 * Creates the client of one profile.
 *
 * @example
 * const client = createServiceClient({ dataDir, events, keys, environments, composer, fetch });
 * const { exchange, session_report } = await client.authenticate({ obj: 'DE02…', sub: 'ops@bank.example' });
 * exchange.curl; // curl -sS -X POST 'https://…/jwk/authenticate' -H 'CX-Authorization: eyJ…' …
 */
export function createServiceClient(options: ServiceOptions): ServiceClient {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? SERVICE_TIMEOUT_MS;
  const history = new ExchangeHistory(options.dataDir, options.historyCap);

  async function key(kid: string, role: string, env: Environment): Promise<KeyInfo> {
    try {
      return await options.keys.get(kid);
    } catch (err) {
      if (err instanceof ConsoleError && err.code === 'NOT_FOUND') {
        throw new ConsoleError(
          'NOT_FOUND',
          `${role} ${quote(kid)} is not in the key store (keys.list shows the keys)` +
            (kid === env.active_kid
              ? `; it is ${envLabel(env)}'s active_kid: set another with ${saveHint(env, 'active_kid')}`
              : ''),
          { field: 'kid' },
        );
      }
      throw err;
    }
  }

  function activeKid(env: Environment, given: string | undefined, field: string): string {
    const kid = given ?? env.active_kid;
    if (kid === null) {
      throw badArgument(
        `no ${field} was given and ${envLabel(env)} has no active_kid: pass ${field}, or set the key ` +
          `registered with the service (keys.list) with ${saveHint(env, 'active_kid')}`,
        field,
      );
    }
    return kid;
  }

  /** obj/sub of the console's own JWTs: the environment's defaults, else the counterparty and "dets-console". */
  const managementClaims = (env: Environment) => ({
    obj: env.default_obj ?? env.counterparty_guid ?? MANAGEMENT_SUB,
    sub: env.default_sub ?? MANAGEMENT_SUB,
  });

  /** A JWT a person asked for (authenticate): through the composer, which also remembers the obj/sub pair. */
  async function sign(kid: string, obj: string, sub: string, env: Environment) {
    await key(kid, 'the signing key', env);
    const signed = await options.composer.sign({ kid, obj, sub });
    const exp = typeof signed.payload.exp === 'number' ? signed.payload.exp : null;
    return { token: signed.token, exp };
  }

  /**
   * A JWT the console composes on its own, for key management and the rotation's proof: the
   * spec's claims (2.4) with the environment's defaults (or managementClaims' stand-ins), five
   * minutes, signed by the key store directly. No obj/sub pair is remembered: no person sent it.
   */
  async function signManagement(kid: string, env: Environment) {
    await key(kid, 'the signing key', env);
    const { obj, sub } = managementClaims(env);
    const iat = Math.floor(now() / 1000);
    const exp = iat + MANAGEMENT_TTL_SECONDS;
    const token = await options.keys.sign(kid, { flow: SIGN_IN_FLOW, obj, sub, iat, exp });
    return { token, exp };
  }

  async function registeredJwkGuid(target: Target, kid: string): Promise<string | null> {
    const found = (await history.list(HISTORY_LOOKBACK)).find(
      (e) =>
        e.ok &&
        (e.operation === 'update-jwk' || e.operation === 'register-jwk') &&
        e.jwk_kid === kid &&
        e.jwk_guid &&
        e.request.url.startsWith(`${target.base}/api/v1/counterparty/${target.guid}/`),
    );
    return found?.jwk_guid ?? null;
  }

  async function kidKnown(target: Target, kid: string | null): Promise<boolean> {
    if (kid === null) return true; // nothing to say about a token without a kid
    if (kid === target.env.active_kid) return true;
    return (await registeredJwkGuid(target, kid)) !== null;
  }

  interface Perform {
    operation: Operation;
    env: Environment;
    target: Target | null;
    request: ServiceRequest;
    signingKid: string | null;
    tokenExp: number | null;
    jwkKid?: string;
    jwkGuid?: string | null;
    /** For a 2xx answer: is it what the operation expects? */
    judge?: (
      body: string,
      reachedUrl: string,
    ) => { ok: true; jwkGuid?: string } | { ok: false; error: string; explanation: string };
  }

  async function perform(p: Perform): Promise<Exchange> {
    const at = new Date(now()).toISOString();
    const response = await sendServiceRequest(options.fetch, p.request, timeoutMs);
    let ok = response.ok && response.status >= 200 && response.status < 300;
    let error: string | null = null;
    let explanation: string | null = null;
    let jwkGuid = p.jwkGuid ?? null;
    if (!response.ok) {
      error = response.message;
    } else if (!ok) {
      error =
        response.body.trim() === ''
          ? `HTTP ${response.status} with an empty body`
          : response.body.slice(0, 4096);
    } else if (p.judge) {
      const verdict = p.judge(response.body, response.url);
      if (verdict.ok) {
        if (verdict.jwkGuid) jwkGuid = verdict.jwkGuid;
      } else {
        ok = false;
        error = verdict.error;
        explanation = verdict.explanation;
      }
    }
    if (!ok && explanation === null) {
      explanation = explainExchange({
        operation: p.operation,
        environment: p.env,
        url: p.request.url,
        response,
        signingKid: p.signingKid,
        signingKidKnown: p.target ? await kidKnown(p.target, p.signingKid) : true,
        tokenExp: p.tokenExp,
        nowMs: now(),
      });
    }
    const exchange: Exchange = {
      id: randomUUID(),
      at,
      environment_id: p.env.id,
      operation: p.operation,
      request: {
        method: p.request.method,
        url: p.request.url,
        headers: { ...p.request.headers },
        body: p.request.body,
      },
      response: response.ok
        ? {
            status: response.status,
            headers: response.headers,
            body: response.truncated ? `${response.body}\n[cut at ${MAX_BODY_BYTES} bytes]` : response.body,
          }
        : null,
      duration_ms: response.durationMs,
      ok,
      error,
      explanation,
      curl: toCurl(p.request),
      signing_kid: p.signingKid,
      ...(p.jwkKid !== undefined ? { jwk_kid: p.jwkKid, jwk_guid: jwkGuid } : {}),
    };
    try {
      await history.append(exchange);
    } catch (err) {
      // The request happened: its result is still returned and shown, only not kept.
      options.events.emit('app.noticed', {
        at: new Date(now()).toISOString(),
        level: 'warning',
        message: `an exchange with the service could not be kept in ${history.file}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
    options.events.emit('service.exchanged', exchange);
    return exchange;
  }

  const signedHeaders = (token: string, withBody: boolean): Record<string, string> => ({
    'CX-Authorization': token,
    Accept: 'application/json',
    ...(withBody ? { 'Content-Type': 'application/json' } : {}),
  });

  async function authenticateToken(
    target: Target,
    token: string,
    meta: { kid: string | null; exp: number | null },
  ): Promise<{ exchange: Exchange; session_token: string | null }> {
    let sessionToken: string | null = null;
    const exchange = await perform({
      operation: 'authenticate',
      env: target.env,
      target,
      request: {
        method: 'POST',
        url: authenticateUrl(target),
        headers: signedHeaders(token, false),
        body: null, // spec 4.1 #2: no request body
        followRedirects: false,
      },
      signingKid: meta.kid,
      tokenExp: meta.exp,
      judge: (body) => {
        try {
          const value = JSON.parse(body) as { session_token?: unknown };
          if (typeof value?.session_token === 'string' && value.session_token !== '') {
            sessionToken = value.session_token;
            return { ok: true };
          }
        } catch {
          // judged below
        }
        return {
          ok: false,
          error: 'the answer has no session_token',
          explanation:
            'The service answered 2xx but not {"session_token": "…"} (spec 2.3): base_url may point at ' +
            'something other than the service (a gateway page, another API).',
        };
      },
    });
    return { exchange, session_token: sessionToken };
  }

  async function authenticateWith(target: Target, kid: string) {
    const signed = await signManagement(kid, target.env);
    return authenticateToken(target, signed.token, { kid, exp: signed.exp });
  }

  async function sendJwk(
    target: Target,
    via: 'put' | 'post',
    kid: string,
    signingKid: string,
    jwkGuid: string | undefined,
  ): Promise<Exchange> {
    const jwk = specJwk(await key(kid, 'the key to register', target.env));
    const signed = await signManagement(signingKid, target.env);
    const guid = via === 'put' ? (jwkGuid ?? randomUUID()) : null;
    const base = `${target.base}/api/v1/counterparty/${target.guid}/jwk`;
    return perform({
      operation: via === 'put' ? 'update-jwk' : 'register-jwk',
      env: target.env,
      target,
      request: {
        method: via === 'put' ? 'PUT' : 'POST',
        url: via === 'put' ? `${base}/${guid}` : base,
        headers: signedHeaders(signed.token, true),
        body: JSON.stringify({ data: jwk }), // spec 2.1: {data: JWK}
        followRedirects: false,
      },
      signingKid,
      tokenExp: signed.exp,
      jwkKid: kid,
      jwkGuid: guid,
      ...(via === 'post'
        ? {
            // The guide's POST answers {guid}: the jwk_guid the service chose.
            judge: (body: string) => {
              try {
                const value = JSON.parse(body) as { guid?: unknown };
                if (typeof value?.guid === 'string') return { ok: true as const, jwkGuid: value.guid };
              } catch {
                // not JSON: still a 2xx, the registration went through
              }
              return { ok: true as const };
            },
          }
        : {}),
    });
  }

  const updateJwk = (target: Target, kid: string, signingKid: string, jwkGuid?: string) =>
    sendJwk(target, 'put', kid, signingKid, jwkGuid);

  const internals: ClientInternals = {
    options,
    now,
    history,
    key,
    updateJwk,
    authenticateWith,
    registeredJwkGuid,
  };
  let rotating: Promise<unknown> = Promise.resolve();

  return {
    async authenticate(rawInput) {
      const input = parseInput(AuthenticateInput, rawInput, 'authenticate input');
      const target = requireTarget(await options.environments.get());
      const { env } = target;
      let token: string;
      let kid: string | null;
      let obj: string | undefined;
      let sub: string | undefined;
      let exp: number | null;
      if (input.token !== undefined) {
        const extra = (['kid', 'obj', 'sub'] as const).filter((f) => input[f] !== undefined);
        if (extra[0] !== undefined) {
          throw badArgument(
            `pass either a token to send as it is, or ${extra.join('/')} to compose one, not both`,
            extra[0],
          );
        }
        token = input.token.trim();
        const decoded = decodeCompact(token);
        const header = decoded.header ?? {};
        const payload = decoded.payload ?? {};
        kid = typeof header.kid === 'string' ? header.kid : null;
        obj = typeof payload.obj === 'string' ? payload.obj : undefined;
        sub = typeof payload.sub === 'string' ? payload.sub : undefined;
        exp = typeof payload.exp === 'number' ? payload.exp : null;
      } else {
        kid = activeKid(env, input.kid, 'kid');
        obj = input.obj ?? env.default_obj ?? undefined;
        sub = input.sub ?? env.default_sub ?? undefined;
        const missing = [
          ...(obj === undefined ? ['obj (the customer acted on: an IBAN or a phone number)'] : []),
          ...(sub === undefined ? ['sub (who initiates: an employee or technical user)'] : []),
        ];
        if (obj === undefined || sub === undefined) {
          throw badArgument(
            `authenticate needs ${missing.join(' and ')}: pass it, or set default_obj/default_sub with ` +
              saveHint(env, obj === undefined ? 'default_obj' : 'default_sub'),
            obj === undefined ? 'obj' : 'sub',
          );
        }
        const signed = await sign(kid, obj, sub, env);
        token = signed.token;
        exp = signed.exp;
      }
      const { exchange, session_token } = await authenticateToken(target, token, { kid, exp });
      // The session_token is checked in place: signature against the service's JWKS, obj/sub as sent (spec 5.5).
      const session_report =
        session_token !== null && env.effective_jwks_url !== null
          ? await inspectToken(
              {
                token: session_token,
                keySource: { type: 'jwks-url', url: env.effective_jwks_url },
                ...(obj !== undefined ? { expectedObj: obj } : {}),
                ...(sub !== undefined ? { expectedSub: sub } : {}),
              },
              { fetch: options.fetch, now },
            )
          : null;
      return { exchange, session_token, session_report };
    },

    async registerJwk(rawInput) {
      const input = parseInput(JwkOperationInput, rawInput, 'registerJwk input');
      if (input.jwk_guid !== undefined) {
        throw badArgument(
          'POST …/jwk lets the service choose the jwk_guid (it answers {guid}); to register under a jwk_guid of your own, use updateJwk (PUT, spec 4.1 #1)',
          'jwk_guid',
        );
      }
      const target = requireTarget(await options.environments.get());
      const signingKid = activeKid(target.env, input.signing_kid, 'signing_kid');
      return sendJwk(target, 'post', input.kid, signingKid, undefined);
    },

    async updateJwk(rawInput) {
      const input = parseInput(JwkOperationInput, rawInput, 'updateJwk input');
      const target = requireTarget(await options.environments.get());
      const signingKid = activeKid(target.env, input.signing_kid, 'signing_kid');
      return updateJwk(target, input.kid, signingKid, input.jwk_guid);
    },

    async listJwks() {
      const target = requireTarget(await options.environments.get());
      const signingKid = activeKid(target.env, undefined, 'kid');
      const signed = await signManagement(signingKid, target.env);
      return perform({
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
    },

    async fetchJwks() {
      const env = await options.environments.get();
      if (env.effective_jwks_url === null) requireTarget(env); // explains the missing base_url
      const url = env.effective_jwks_url as string;
      return perform({
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
        judge: (body, reached) => {
          // The bank's JWKS client follows same-origin redirects only (fetch-jwks.ts): keys found
          // elsewhere are keys it would never use, so this fetch fails by the same rule.
          const other = otherOrigin(url, new URL(reached));
          if (other !== null) {
            return {
              ok: false,
              error: `JWKS URL ${url} ${other}`,
              explanation: `The bank endpoints would not take these keys: point the environment's service_jwks_url (or base_url) at the origin that serves the JWKS.`,
            };
          }
          try {
            // The bank's rule for a service JWKS (key-source.ts): what it would leave out, and why.
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
        },
      });
    },

    async exchanges(limit) {
      return history.list(limit ?? 100);
    },

    async rotate(rawInput) {
      const input = parseInput(RotateInput, rawInput, 'rotate input');
      // One rotation at a time: two at once would both generate and race to activate.
      const run = rotating.then(() => runRotation(internals, input));
      rotating = run.catch(() => undefined);
      return run;
    },
  };
}
