/**
 * The service's facts (steps 2, 4 and 8): this environment's exchanges, newest first, and the
 * key store's keys. An authenticate proves step 4 only when the walkthrough made it (step 4, or
 * the rotation's proof with the next key): a refused token sent from the Service page is other
 * traffic.
 */
import type { KeyInfo } from '../../../contract/schemas/keys';
import type { Environment, Exchange } from '../../../contract/schemas/service';
import type { CoreDeps } from '../../core-types';
import type { Progress } from '../progress';
import { messageOf } from '../message';

/**
 * The keys, or why the key store cannot be read (step 1's reason).
 *
 * @example
 * const { keys, keysError } = await gatherKeys(deps);
 */
export async function gatherKeys(deps: CoreDeps): Promise<{ keys: KeyInfo[]; keysError: string | null }> {
  try {
    return { keys: await deps.services.keys().list(), keysError: null };
  } catch (err) {
    return { keys: [], keysError: messageOf(err) };
  }
}

/**
 * This environment's exchanges with the service, without the authenticates the walkthrough did
 * not make. An unreadable history is no exchanges.
 *
 * @example
 * const exchanges = await gatherExchanges(deps, env, progress);
 */
export async function gatherExchanges(
  deps: CoreDeps,
  env: Environment,
  progress: Progress,
): Promise<Exchange[]> {
  const all = (
    await deps.services
      .service()
      .exchanges(1000)
      .catch(() => [])
  ).filter((e) => e.environment_id === env.id);
  const own = new Set([
    ...progress.own.exchange_ids,
    ...(progress.rotation?.steps.flatMap((st) => (st.exchange_id ? [st.exchange_id] : [])) ?? []),
  ]);
  return all.filter((e) => e.operation !== 'authenticate' || own.has(e.id));
}
