/**
 * What the exchange history says about a kid's registration with the service (spec 4.1 #1): the
 * history is the console's only memory of which jwk_guid a kid was registered under.
 */
import type { ClientContext } from './client-context';
import type { Target } from './target';

/** How far back the history is searched for an earlier registration of a kid. */
const HISTORY_LOOKBACK = 1000;

/**
 * The jwk_guid of the most recent successful registration of `kid` for the target's
 * counterparty, or null when the history has none.
 *
 * @example
 * await registeredJwkGuid(ctx, target, 'bank-2026'); // '7d1c…' after an ok update-jwk
 */
export async function registeredJwkGuid(
  ctx: ClientContext,
  target: Target,
  kid: string,
): Promise<string | null> {
  const prefix = `${target.base}/api/v1/counterparty/${target.guid}/`;
  const found = (await ctx.history.list(HISTORY_LOOKBACK)).find(
    (e) =>
      e.ok &&
      (e.operation === 'update-jwk' || e.operation === 'register-jwk') &&
      e.jwk_kid === kid &&
      e.jwk_guid &&
      e.request.url.startsWith(prefix),
  );
  return found?.jwk_guid ?? null;
}

/**
 * Whether the service can know `kid`: it is the environment's active key or was registered
 * through the console. A token without a kid says nothing, so it counts as known.
 */
export async function kidKnown(ctx: ClientContext, target: Target, kid: string | null): Promise<boolean> {
  if (kid === null) return true;
  if (kid === target.env.active_kid) return true;
  return (await registeredJwkGuid(ctx, target, kid)) !== null;
}
