/**
 * The walkthrough's customer becomes its environment's default obj/sub (issue 26 item 3: the
 * Composer, Service → Authenticate and Conformance start from the environment's defaults, which
 * stayed empty after a walkthrough, so each page was typed again). Only a default not set yet is
 * filled: the engineer's own choice is never overwritten.
 */
import type { Environment } from '../../contract/schemas/service';
import type { CoreDeps } from '../core-types';

/**
 * Saves `obj`/`sub` as `env`'s defaults where it has none; the environment as saved, or `env`
 * when nothing was missing.
 *
 * @example
 * await adoptDefaults(deps, env, 'DE89370400440532013000', 'walkthrough@bank.example');
 */
export async function adoptDefaults(
  deps: Pick<CoreDeps, 'services'>,
  env: Environment,
  obj: string,
  sub: string,
): Promise<Environment> {
  const patch = {
    ...(env.default_obj ? {} : { default_obj: obj }),
    ...(env.default_sub ? {} : { default_sub: sub }),
  };
  if (Object.keys(patch).length === 0) return env;
  return deps.services.environments().save({ id: env.id, ...patch });
}
