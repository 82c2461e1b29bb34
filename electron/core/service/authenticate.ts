/**
 * Endpoint 2 of the service (spec 4.1 #2): POST …/jwk/authenticate with a bank JWT in
 * CX-Authorization and no body; the answer's session_token is checked in place (spec 5.5).
 */
import type { z } from 'zod';
import type { AuthenticateInput, AuthenticateResult, Exchange } from '../../contract/schemas/service';
import { badArgument } from '../common';
import { decodeCompact, inspectToken } from '../jwt';
import type { ClientContext } from './client-context';
import { NO_SESSION_TOKEN, sessionTokenOf } from './judges';
import { perform, signedHeaders } from './perform';
import { activeKid, signComposed, signManagement } from './signing';
import { authenticateUrl, requireTarget, saveHint, type Target } from './target';

/** The token to send and what the exchange records of it. */
interface OutgoingToken {
  token: string;
  kid: string | null;
  obj: string | undefined;
  sub: string | undefined;
  exp: number | null;
}

/** An authenticate exchange and the session_token it brought back (null when it failed). */
export interface Authenticated {
  exchange: Exchange;
  session_token: string | null;
}

/**
 * Sends `token` to the authenticate endpoint as it is.
 *
 * @example
 * const { exchange, session_token } = await authenticateToken(ctx, target, 'eyJ…', { kid: 'bank-2026', exp: null });
 */
export async function authenticateToken(
  ctx: ClientContext,
  target: Target,
  token: string,
  meta: { kid: string | null; exp: number | null },
): Promise<Authenticated> {
  let sessionToken: string | null = null;
  const exchange = await perform(ctx, {
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
      sessionToken = sessionTokenOf(body);
      return sessionToken === null ? NO_SESSION_TOKEN : { ok: true };
    },
  });
  return { exchange, session_token: sessionToken };
}

/** Authenticates with a JWT the console composes itself, signed by `kid` (the rotation's proof). */
export async function authenticateWith(
  ctx: ClientContext,
  target: Target,
  kid: string,
): Promise<Authenticated> {
  const signed = await signManagement(ctx, kid, target.env);
  return authenticateToken(ctx, target, signed.token, { kid, exp: signed.exp });
}

/** A token given as it is: sent unchanged, its kid/obj/sub/exp read for the record and the check. */
function givenToken(input: z.output<typeof AuthenticateInput> & { token: string }): OutgoingToken {
  const extra = (['kid', 'obj', 'sub'] as const).filter((f) => input[f] !== undefined);
  if (extra[0] !== undefined) {
    throw badArgument(
      `pass either a token to send as it is, or ${extra.join('/')} to compose one, not both`,
      extra[0],
    );
  }
  const token = input.token.trim();
  const decoded = decodeCompact(token);
  const header = decoded.header ?? {};
  const payload = decoded.payload ?? {};
  return {
    token,
    kid: typeof header.kid === 'string' ? header.kid : null,
    obj: typeof payload.obj === 'string' ? payload.obj : undefined,
    sub: typeof payload.sub === 'string' ? payload.sub : undefined,
    exp: typeof payload.exp === 'number' ? payload.exp : null,
  };
}

/** A token composed from the input and the environment's defaults; BAD_ARGUMENT names what is missing. */
async function composedToken(
  ctx: ClientContext,
  target: Target,
  input: z.output<typeof AuthenticateInput>,
): Promise<OutgoingToken> {
  const { env } = target;
  const kid = activeKid(env, input.kid, 'kid');
  const obj = input.obj ?? env.default_obj ?? undefined;
  const sub = input.sub ?? env.default_sub ?? undefined;
  if (obj === undefined || sub === undefined) {
    const missing = [
      ...(obj === undefined ? ['obj (the customer acted on: an IBAN or a phone number)'] : []),
      ...(sub === undefined ? ['sub (who initiates: an employee or technical user)'] : []),
    ];
    throw badArgument(
      `authenticate needs ${missing.join(' and ')}: pass it, or set default_obj/default_sub with ` +
        saveHint(env, obj === undefined ? 'default_obj' : 'default_sub'),
      obj === undefined ? 'obj' : 'sub',
    );
  }
  const signed = await signComposed(ctx, kid, { obj, sub }, env);
  return { token: signed.token, kid, obj, sub, exp: signed.exp };
}

/**
 * The client's authenticate: a given token or one composed with the active key, sent to the
 * active environment; the session_token is checked against the service's JWKS with obj/sub as
 * sent (spec 5.5).
 *
 * @example
 * const { exchange, session_report } = await authenticate(ctx, { obj: 'DE02…', sub: 'ops@bank.example' });
 */
export async function authenticate(
  ctx: ClientContext,
  input: z.output<typeof AuthenticateInput>,
): Promise<z.output<typeof AuthenticateResult>> {
  const target = requireTarget(await ctx.options.environments.get());
  const { env } = target;
  const outgoing =
    input.token !== undefined
      ? givenToken({ ...input, token: input.token })
      : await composedToken(ctx, target, input);
  const { kid, obj, sub, exp } = outgoing;
  const { exchange, session_token } = await authenticateToken(ctx, target, outgoing.token, { kid, exp });
  const session_report =
    session_token !== null && env.effective_jwks_url !== null
      ? await inspectToken(
          {
            token: session_token,
            keySource: { type: 'jwks-url', url: env.effective_jwks_url },
            ...(obj !== undefined ? { expectedObj: obj } : {}),
            ...(sub !== undefined ? { expectedSub: sub } : {}),
          },
          { fetch: ctx.options.fetch, now: ctx.now },
        )
      : null;
  return { exchange, session_token, session_report };
}
