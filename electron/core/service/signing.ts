/**
 * How the service client gets its bank JWTs (spec 2.4, 5.1): which key signs, and the claims of
 * the JWTs the console composes on its own. The private keys never leave the key store: it
 * signs, we get a compact JWS.
 */
import { ConsoleError } from '../../contract/errors';
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Environment } from '../../contract/schemas/service';
import { badArgument } from '../common';
import { SIGN_IN_FLOW } from '../jwt';
import type { ClientContext } from './client-context';
import { envLabel, quote, saveHint } from './target';

/** The sub of JWTs the console signs for key management when the environment has no default_sub. */
export const MANAGEMENT_SUB = 'dets-console';
/** Lifetime of those JWTs, in seconds. */
const MANAGEMENT_TTL_SECONDS = 300;

/** A compact JWS and its exp claim (null when it has none). */
export interface SignedToken {
  token: string;
  exp: number | null;
}

/**
 * The key `kid` from the key store; NOT_FOUND names its `role` and, when it is the
 * environment's active_kid, where to set another.
 *
 * @example
 * await signingKey(ctx, 'bank-2026', 'the signing key', env); // KeyInfo, or NOT_FOUND {field: 'kid'}
 */
export async function signingKey(
  ctx: ClientContext,
  kid: string,
  role: string,
  env: Environment,
): Promise<KeyInfo> {
  try {
    return await ctx.options.keys.get(kid);
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

/**
 * The kid given, else the environment's active_kid; BAD_ARGUMENT on `field` when neither is set.
 *
 * @example
 * activeKid(env, undefined, 'signing_kid'); // env.active_kid
 */
export function activeKid(env: Environment, given: string | undefined, field: string): string {
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

/**
 * obj/sub of the console's own JWTs: the environment's defaults, else the counterparty and
 * "dets-console".
 *
 * @example
 * managementClaims({ ...env, default_obj: null, default_sub: null }); // {obj: env.counterparty_guid, sub: 'dets-console'}
 */
export function managementClaims(env: Environment): { obj: string; sub: string } {
  return {
    obj: env.default_obj ?? env.counterparty_guid ?? MANAGEMENT_SUB,
    sub: env.default_sub ?? MANAGEMENT_SUB,
  };
}

/**
 * A JWT a person asked for (authenticate): through the composer, which also remembers the
 * obj/sub pair.
 */
export async function signComposed(
  ctx: ClientContext,
  kid: string,
  claims: { obj: string; sub: string },
  env: Environment,
): Promise<SignedToken> {
  await signingKey(ctx, kid, 'the signing key', env);
  const signed = await ctx.options.composer.sign({ kid, obj: claims.obj, sub: claims.sub });
  const exp = typeof signed.payload.exp === 'number' ? signed.payload.exp : null;
  return { token: signed.token, exp };
}

/**
 * A JWT the console composes on its own, for key management and the rotation's proof: the
 * spec's claims (2.4) with the environment's defaults (or managementClaims' stand-ins), five
 * minutes, signed by the key store directly. No obj/sub pair is remembered: no person sent it.
 */
export async function signManagement(
  ctx: ClientContext,
  kid: string,
  env: Environment,
): Promise<SignedToken> {
  await signingKey(ctx, kid, 'the signing key', env);
  const { obj, sub } = managementClaims(env);
  const iat = Math.floor(ctx.now() / 1000);
  const exp = iat + MANAGEMENT_TTL_SECONDS;
  const token = await ctx.options.keys.sign(kid, { flow: SIGN_IN_FLOW, obj, sub, iat, exp });
  return { token, exp };
}
