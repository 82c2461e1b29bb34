/**
 * The walkthrough's own traffic in a profile written before its progress kept it (issue 24 item
 * 7): the segment-log version and the first database versions wrote progress records without
 * `own` (progress.ts), so after an upgrade nothing proved steps 4, 6 and 7 any more, although the
 * old rules had proven them. This rebuilds `own`, once per record, from what the old profile
 * shows the walkthrough itself did.
 *
 * What marks the walkthrough's own actions in an old profile: its progress record keeps, per
 * step, the moment its last action ended (`attempts`, written by runAction right after the
 * action), and the exchange of its last successful authenticate (`session`, written by step 4
 * alone). The sandbox's traces and the service exchanges carry their own start and duration, and
 * the bank's callback events the X-Session-ID they arrived with. So:
 *
 * - step 4: the exchange of `session`, and the authenticate exchange of this environment that
 *   ended last before the step's last attempt (within ACTION_TAIL_MS of it);
 * - step 6 (sandbox): the sign-in trace of the environment's counterparty that ended last before
 *   the step's last attempt (within ACTION_TAIL_MS), when the service token it sent names the
 *   walkthrough's obj and sub; its callback is the /user_auth event that carried that very
 *   X-Session-ID (the bank records it as received), never one matched by time alone;
 * - step 7 (sandbox): the notify traces of the step's last attempt: the one that ended last
 *   before it (within ACTION_TAIL_MS), and before that, back to back, the routes the action sent
 *   before it, in the order it sends them (pay-in, pay-out, transfer).
 *
 * Nothing else is claimed (DESIGN.md "Environments": no other traffic turns a step green or
 * red): the Sandbox page's sign-ins and notifications, an authenticate from the Service page,
 * and the walkthrough's earlier runs, which the old record did not mark, stay other traffic. What
 * cannot be told apart is left out (the step then asks for its action again), never guessed in.
 */
import type { Trace } from '../../contract/schemas/sandbox';
import type { Exchange } from '../../contract/schemas/service';
import type { CoreDeps } from '../core-types';
import { decodeCompact } from '../jwt';
import { NOTIFY_ROUTES } from './fact-types';
import { OWN_KEEP, type Own, type Progress } from './progress';
import { SESSION_HEADER } from '../bank';

/**
 * The longest an action's last request may have ended before its attempt was recorded: the old
 * sign-in waited up to 3 s for the bank to record its callback, then wrote the progress file;
 * the rest is room for a slow disk. A stranger's request would have to end inside this tail,
 * after the walkthrough's own, to be taken for it.
 */
export const ACTION_TAIL_MS = 15_000;
/** Rounding between a trace's end (start + measured duration) and the attempt's clock. */
const CLOCK_SLACK_MS = 1000;
/** How far before a sign-in's trace its callback may be stamped (the bank's clock, the same machine). */
const CALLBACK_LEAD_MS = 1000;

/** What the old profile holds of one environment, read through the current stores. */
export interface OldProfile {
  /** The sandbox's traces of the environment's counterparty (none for a real environment). */
  traces: readonly Trace[];
  /** The environment's exchanges with the service. */
  exchanges: readonly Exchange[];
  /** The /user_auth callback stored between `from` and `to` that carried `sessionId`, or null. */
  callbackCarrying(sessionId: string, from: string, to: string): Promise<string | null>;
}

type Timed = { at: string; duration_ms: number };
const endOf = (x: Timed): number => Date.parse(x.at) + x.duration_ms;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The entry of `items` that ended last before `attemptAt`, within ACTION_TAIL_MS of it. */
function lastBefore<T extends Timed>(items: readonly T[], attemptAt: string | undefined): T | null {
  if (attemptAt === undefined) return null;
  const at = Date.parse(attemptAt);
  let best: T | null = null;
  for (const x of items) {
    const end = endOf(x);
    if (end > at + CLOCK_SLACK_MS || end < at - ACTION_TAIL_MS) continue;
    if (best === null || end > endOf(best)) best = x;
  }
  return best;
}

/** The request a trace step sent (the sandbox keeps X-Session-ID as sent: it is what is under test). */
function sentRequest(trace: Trace) {
  return trace.steps.find((s) => s.request !== null)?.request ?? null;
}

function header(headers: Record<string, string>, name: string): string | null {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? null : (headers[key] ?? null);
}

async function ownSignIn(progress: Progress, old: OldProfile): Promise<Own['sign_ins']> {
  const signIns = old.traces.filter((t) => t.kind === 'sign-in');
  const trace = lastBefore(signIns, progress.attempts['sign-in']?.at);
  if (!trace) return [];
  const sent = sentRequest(trace);
  const sessionId = sent ? header(sent.headers, SESSION_HEADER) : null;
  if (sessionId === null) return [{ at: trace.at, trace_id: trace.id, callback_id: null }];
  // The service token carries the bank JWT's obj and sub back (spec 4.4 #7): the walkthrough's.
  const claims = decodeCompact(sessionId).payload;
  if (claims?.obj !== progress.obj || claims?.sub !== progress.sub) return [];
  const from = iso(Date.parse(trace.at) - CALLBACK_LEAD_MS);
  const to = iso(endOf(trace) + ACTION_TAIL_MS);
  return [{ at: trace.at, trace_id: trace.id, callback_id: await old.callbackCarrying(sessionId, from, to) }];
}

/** A notify trace's route and transaction_id, from the request it sent; null when it sent none. */
export function notified(trace: Trace): { route: string; transaction_id: string } | null {
  const sent = sentRequest(trace);
  if (!sent?.url || sent.body === null) return null;
  try {
    const route = new URL(sent.url).pathname.split('/').pop() ?? '';
    const body = JSON.parse(sent.body) as { transaction_id?: unknown };
    return typeof body.transaction_id === 'string' ? { route, transaction_id: body.transaction_id } : null;
  } catch {
    return null;
  }
}

function ownNotifications(progress: Progress, old: OldProfile): Own['notifications'] {
  const notifies = old.traces.filter((t) => t.kind === 'notify');
  const routes: readonly string[] = NOTIFY_ROUTES;
  const out: Own['notifications'] = [];
  let trace = lastBefore(notifies, progress.attempts.notifications?.at);
  while (trace !== null) {
    const sent = notified(trace);
    const index = sent ? routes.indexOf(sent.route) : -1;
    // The action sends each route once, in order: the one before must be the route before.
    const previous = out.at(-1);
    if (!sent || index < 0 || (previous && index !== routes.indexOf(previous.route) - 1)) break;
    out.push({ at: trace.at, route: sent.route, transaction_id: sent.transaction_id, trace_id: trace.id });
    if (index === 0) break;
    const started = Date.parse(trace.at);
    trace = lastBefore(
      notifies.filter((t) => Date.parse(t.at) < started),
      trace.at,
    );
  }
  return out;
}

function ownExchanges(progress: Progress, old: OldProfile): string[] {
  const auths = old.exchanges.filter((e) => e.operation === 'authenticate');
  const last = lastBefore(auths, progress.attempts.authenticate?.at);
  const ids = [last?.id, progress.session?.exchange_id].filter((id): id is string => id !== undefined);
  return [...new Set(ids)].slice(0, OWN_KEEP);
}

/**
 * The `own` lists an old progress record's walkthrough earned, from the old profile (see the top).
 *
 * @example
 * progress.own = await ownOfOldProfile(progress, { traces, exchanges, callbackCarrying });
 */
export async function ownOfOldProfile(progress: Progress, old: OldProfile): Promise<Own> {
  return {
    sign_ins: await ownSignIn(progress, old),
    notifications: ownNotifications(progress, old),
    exchange_ids: ownExchanges(progress, old),
  };
}

/**
 * progress.ts's `rebuildOwn` on the core's stores (each has migrated its own old files when it
 * opened). Rejects when a source cannot be read: the record is then tried again later.
 */
export function rebuildOwnFrom(deps: CoreDeps): (progress: Progress) => Promise<Own> {
  return async (progress) => {
    const env = await deps.services.environments().get(progress.environment_id);
    const guid = env.kind === 'sandbox' ? env.counterparty_guid : null;
    const traces = guid ? await (await deps.sandbox()).traces({ counterparty_guid: guid, limit: 1000 }) : [];
    const exchanges = (await deps.services.service().exchanges(1000)).filter(
      (e) => e.environment_id === env.id,
    );
    return ownOfOldProfile(progress, {
      traces,
      exchanges,
      async callbackCarrying(sessionId, from, to) {
        const store = await deps.store();
        const page = await store.query({
          kind: 'callback',
          path: '/user_auth',
          since: from,
          until: to,
          limit: 200,
        });
        for (const e of page.events) {
          // A row that cannot be read is not the proof; the rest still can be.
          const full = await store.get(e.id).catch(() => null);
          const headers = full?.request?.headers ?? {};
          if (header(headers, SESSION_HEADER) === sessionId) return e.id;
        }
        return null;
      },
    });
  };
}
