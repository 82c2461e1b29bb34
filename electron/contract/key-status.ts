/**
 * A key's status in one environment, and the key a signing form starts with (issue 26 item 1;
 * DESIGN.md "Environments"). Pure functions over the contract's shapes, so the core
 * (electron/core/service/key-environments.ts) and the pages decide them with the same code.
 */
import type { KeyInfo } from './schemas/keys';
import type { Environment } from './schemas/service';

/** The key's status in `env`, or null when the environment does not use it. */
export function statusIn(env: Pick<Environment, 'active_kid' | 'retired_kids'>, kid: string) {
  if (env.active_kid === kid) return 'active' as const;
  if (env.retired_kids?.includes(kid)) return 'retired' as const;
  return null;
}

/**
 * The key a form signing for `env` starts with: the environment's active key when the vault
 * holds it, else a key `env` has not retired whose profile-wide status is active or next; never
 * a key retired in `env` (issue 26: "never a retired one"). Null when there is none.
 *
 * @example
 * preferredKid(keys, env, ['kid-registered']); // env.active_kid when registered
 */
export function preferredKid(
  keys: Pick<KeyInfo, 'kid' | 'status'>[],
  env: Pick<Environment, 'active_kid' | 'retired_kids'> | null,
  among?: readonly string[],
): string | null {
  const allowed = keys.filter((k) => among === undefined || among.includes(k.kid));
  if (env?.active_kid && allowed.some((k) => k.kid === env.active_kid)) return env.active_kid;
  const usable = allowed.filter(
    (k) => k.status !== 'retired' && (env === null || statusIn(env, k.kid) !== 'retired'),
  );
  return (usable.find((k) => k.status === 'active') ?? usable[0])?.kid ?? null;
}
