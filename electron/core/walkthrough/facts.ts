/**
 * Gathers the walkthrough's facts from the stores that record real events, one module per
 * source: the key store and the service's exchange history (facts/service.ts), the sandbox
 * (facts/sandbox.ts), the event store (facts/events.ts), the tunnel's reach (facts/reach.ts) and
 * the walkthrough's own record. Each source that cannot be read is reported on the step it
 * proves, never thrown for the whole page.
 */
import type { Environment } from '../../contract/schemas/service';
import type { CoreDeps } from '../core-types';
import type { WalkthroughFacts } from './fact-types';
import { gatherEvents } from './facts/events';
import { gatherReach } from './facts/reach';
import { gatherSandbox } from './facts/sandbox';
import { gatherExchanges, gatherKeys } from './facts/service';
import type { Progress } from './progress';

export { callbackFact } from './facts/events';

/** The customer the walkthrough signs in when the bank has none: an IBAN with a valid checksum. */
export const DEFAULT_OBJ = 'DE89370400440532013000';
/** Who acts: a technical user of the bank (spec 2.4 sub). */
export const DEFAULT_SUB = 'walkthrough@bank.example';

export interface GatheredFacts extends WalkthroughFacts {
  progress: Progress;
  /** The bank listener's own URL (null when not listening here). */
  listenerUrl: string | null;
}

/** Where notifications are posted under the bank URL: the bank's setting, else spec 4.3's default. */
async function notifyPrefixOf(deps: CoreDeps): Promise<string> {
  try {
    return (await (await deps.bank()).status()).notify_path_prefix;
  } catch {
    return '/api/svc/notify';
  }
}

/**
 * The facts of `env` as the stores hold them now, for the pure derivation (derive.ts).
 *
 * @example
 * const facts = await gatherFacts(deps, env, await progress.read(env.id));
 * deriveSteps(facts, Date.now());
 */
export async function gatherFacts(
  deps: CoreDeps,
  env: Environment,
  progress: Progress,
): Promise<GatheredFacts> {
  const obj = progress.obj ?? env.default_obj ?? DEFAULT_OBJ;
  const sub = progress.sub ?? env.default_sub ?? DEFAULT_SUB;
  const { keys, keysError } = await gatherKeys(deps);
  const sb = await gatherSandbox(deps, env, progress);
  const listenerUrl = deps.listeners().bank ?? null;
  const notifyPrefix = await notifyPrefixOf(deps);
  const exchanges = await gatherExchanges(deps, env, progress);
  const events = await gatherEvents(deps, { env, progress, obj, sub, notifyPrefix });
  const reach = env.kind === 'real' ? await gatherReach(deps, listenerUrl, notifyPrefix) : null;
  return {
    env,
    resetAt: progress.reset_at,
    keys,
    keysError,
    sandbox: sb.sandbox,
    bankUrl: reach ? reach.bank_auth_url : listenerUrl,
    exchanges,
    composed: progress.composed,
    session: progress.session,
    callbacks: events.callbacks,
    traces: sb.traces,
    notifications: events.notifications,
    rotation: progress.rotation,
    attempts: progress.attempts,
    reach,
    obj,
    sub,
    progress,
    listenerUrl,
    notifyPrefix,
    outside: { traces: sb.outsideTraces, ...events.outside },
    rehearsal: progress.rehearsal,
  };
}
