/**
 * What ties a real environment's traffic to its walkthrough (issue 26 item 2; DESIGN.md
 * "Environments": an environment's walkthrough counts only what its own actions caused, or what
 * its own service sent after the environment was created, correlated by its obj/sub, kid,
 * counterparty and transaction_ids; no other traffic — another environment, a replay, a
 * stranger's request, events from before it existed — ever turns one of its steps green or red).
 *
 * - time: nothing stored before the environment was created (or before the walkthrough's reset);
 * - callbacks: the event's environment, the one whose service JWKS published the token's kid
 *   (bank/verify.ts), must be this one: the sandbox's callbacks and their replays (signed by the
 *   sandbox), and a stranger's kid, belong to another environment or to none;
 * - notifications: a transaction_id the built-in sandbox delivered is the sandbox's, and a repeat
 *   is a transaction already stored (the first one counted, or history that did not).
 */
import type { EventDetail, EventSummary } from '../../../contract/schemas/events';
import type { Environment } from '../../../contract/schemas/service';
import type { CoreDeps } from '../../core-types';
import { notified } from '../legacy-own';

/** The later of the walkthrough's reset and the environment's creation (ISO 8601), or undefined. */
export function countsSince(env: Environment, resetAt: string | null): string | undefined {
  const times = [resetAt, env.created_at ?? null].filter((t): t is string => t !== null);
  if (times.length === 0) return undefined;
  return times.reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b));
}

/**
 * Whether a stored callback belongs to `env`: its kid was found in `env`'s service JWKS (named
 * after `env`, or found at `env`'s JWKS URL when two environments share one).
 */
export function callbackOf(
  env: Environment,
  full: Pick<EventDetail, 'environment' | 'jwks'> | null,
): boolean {
  if (!full?.environment) return false;
  return (
    full.environment.id === env.id || (full.jwks?.url != null && full.jwks.url === env.effective_jwks_url)
  );
}

/**
 * The transaction_ids the built-in sandbox delivered to the bank (lower case): the sandbox's
 * traffic, never a real service's. The one exception is an environment whose service is this
 * very sandbox under another name (its base_url is the sandbox listener's): what the sandbox
 * sent its counterparty is then its own service's. Empty when the sandbox cannot be read.
 */
export async function sandboxDelivered(deps: CoreDeps, env: Environment): Promise<Set<string>> {
  const ids = new Set<string>();
  const sandboxUrl = deps.listeners().sandbox?.replace(/\/+$/, '') ?? null;
  const ownGuid =
    sandboxUrl !== null && env.base_url === sandboxUrl ? env.counterparty_guid?.toLowerCase() : null;
  try {
    const traces = await (await deps.sandbox()).traces({ limit: 1000 });
    for (const t of traces) {
      if (ownGuid && t.counterparty_guid.toLowerCase() === ownGuid) continue;
      const sent = t.kind === 'notify' ? notified(t) : null;
      if (sent) ids.add(sent.transaction_id.toLowerCase());
    }
  } catch {
    // no sandbox: nothing it delivered to leave out
  }
  return ids;
}

/** Whether a stored notification may prove a real environment's step 7. */
export function notificationOf(e: EventSummary, sandboxIds: ReadonlySet<string>): boolean {
  if (e.outcome !== 'accepted') return false;
  return e.transaction_id === null || !sandboxIds.has(e.transaction_id.toLowerCase());
}
