/**
 * The event store's facts (steps 6 and 7): the walkthrough's GET /user_auth callbacks and its
 * notifications since the reset, and a count of the other traffic beside them (issue 13 item 4).
 * Without an event store, nothing proves the steps: they stay pending.
 */
import type { EventDetail, EventSummary } from '../../../contract/schemas/events';
import type { Environment } from '../../../contract/schemas/service';
import type { CoreDeps } from '../../core-types';
import { bodyDetail, verdictDetail } from '../../store';
import { NOTIFY_ROUTES, type CallbackFact, type NotificationFact } from '../fact-types';
import type { Own, Progress } from '../progress';
import { callbackOf, countsSince, notificationOf, sandboxDelivered } from './real-traffic';

/** How many of the newest callbacks are read in full (for the 401's detail and forward verdicts). */
const DETAIL_LIMIT = 5;

/** The failed check's words: the bank's recorded verdict (the budget has no body of its own), else the 401's body. */
function callbackDetail(e: Pick<EventDetail, 'data' | 'response'>): string | null {
  return verdictDetail(e) ?? bodyDetail(e.response?.body);
}

type Store = Awaited<ReturnType<CoreDeps['store']>>;

/** What the event facts are gathered for: the environment, the walkthrough's record and customer. */
export interface EventsInput {
  env: Environment;
  progress: Progress;
  obj: string;
  sub: string;
  /** Where notifications are posted under the bank URL. */
  notifyPrefix: string;
}

/** The event store's facts; `outside` counts the traffic that is not the walkthrough's. */
export interface EventFacts {
  callbacks: CallbackFact[];
  notifications: NotificationFact[];
  outside: { callbacks: number; notifications: number };
}

/**
 * The walkthrough's callbacks and notifications since the reset, newest first. What was read
 * before a store failure is kept; no store at all leaves them empty.
 *
 * @example
 * const { callbacks } = await gatherEvents(deps, { env, progress, obj, sub, notifyPrefix });
 */
export async function gatherEvents(deps: CoreDeps, input: EventsInput): Promise<EventFacts> {
  const out: EventFacts = { callbacks: [], notifications: [], outside: { callbacks: 0, notifications: 0 } };
  try {
    const store = await deps.store();
    await readCallbacks(store, input, out);
    if (input.env.kind === 'sandbox') await readOwnNotifications(store, input, out);
    else await readRouteNotifications(store, input, out, await sandboxDelivered(deps, input.env));
    out.notifications.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  } catch {
    // no event store: steps 6 and 7 stay pending, as nothing proves them
  }
  return out;
}

/**
 * The walkthrough's GET /user_auth callbacks. Sandbox: the callbacks the walkthrough's own
 * sign-ins caused. A real service calls on its own: its callbacks are those whose kid its own
 * JWKS published, for the walkthrough's obj and sub, since the environment exists
 * (real-traffic.ts).
 */
async function readCallbacks(store: Store, input: EventsInput, out: EventFacts): Promise<void> {
  if (input.env.kind !== 'sandbox') return readRealCallbacks(store, input, out);
  const { progress } = input;
  const since = progress.reset_at ?? undefined;
  // `text` narrows to events naming the obj (a substring search); the exact match is ours.
  const cbPage = await store.query({
    kind: 'callback',
    path: '/user_auth',
    text: input.obj,
    since,
    limit: 200,
  });
  const ownCallbacks = new Set(progress.own.sign_ins.flatMap((x) => (x.callback_id ? [x.callback_id] : [])));
  const mine = cbPage.events.filter((e) => ownCallbacks.has(e.id)).slice(0, 50);
  out.outside.callbacks = cbPage.events.length - mine.length;
  for (const [i, e] of mine.entries()) {
    const full = i < DETAIL_LIMIT ? await store.get(e.id).catch(() => null) : null;
    out.callbacks.push(callbackFact(e, full));
  }
}

/** A real environment's callbacks: its obj/sub, its service's kid, since it exists (newest 50 read whole). */
async function readRealCallbacks(store: Store, input: EventsInput, out: EventFacts): Promise<void> {
  const { env, progress, obj, sub } = input;
  const since = countsSince(env, progress.reset_at);
  const cbPage = await store.query({ kind: 'callback', path: '/user_auth', text: obj, since, limit: 200 });
  const candidates = cbPage.events.filter((e) => e.obj === obj && e.sub === sub).slice(0, 50);
  for (const e of candidates) {
    const full = await store.get(e.id).catch(() => null);
    if (callbackOf(env, full)) out.callbacks.push(callbackFact(e, full));
  }
  out.outside.callbacks = cbPage.events.length - out.callbacks.length;
}

/**
 * Sandbox: the walkthrough's own notifications, found by their transaction_id: a flood or a
 * malformed POST from outside cannot hide or fail them.
 */
async function readOwnNotifications(store: Store, input: EventsInput, out: EventFacts): Promise<void> {
  const { progress, notifyPrefix } = input;
  const since = progress.reset_at ?? undefined;
  const newest = new Map<string, Own['notifications'][number]>();
  for (const n of progress.own.notifications) if (!newest.has(n.route)) newest.set(n.route, n);
  for (const n of newest.values()) {
    if (since && Date.parse(n.at) < Date.parse(since)) continue;
    const page = await store.query({ kind: 'notification', transaction_id: n.transaction_id, limit: 5 });
    for (const e of page.events) {
      const route = NOTIFY_ROUTES.find((r) => e.path === `${notifyPrefix}/${r}`);
      if (route) out.notifications.push(toNotification(e, route));
    }
  }
  const total = await store.query({ kind: 'notification', since, limit: 1 }).catch(() => ({ total: 0 }));
  out.outside.notifications = Math.max(0, total.total - out.notifications.length);
}

/**
 * A real service's notifications, per route, so a flood on one route (a load test) cannot hide
 * the others; only those stored since the environment exists, neither delivered by the built-in
 * sandbox nor repeats of a transaction already stored (real-traffic.ts).
 */
async function readRouteNotifications(
  store: Store,
  input: EventsInput,
  out: EventFacts,
  sandboxIds: ReadonlySet<string>,
): Promise<void> {
  const since = countsSince(input.env, input.progress.reset_at);
  for (const route of NOTIFY_ROUTES) {
    const page = await store.query({
      kind: 'notification',
      path: `${input.notifyPrefix}/${route}`,
      since,
      limit: 20,
    });
    for (const e of page.events) {
      if (notificationOf(e, sandboxIds)) out.notifications.push(toNotification(e, route));
      else out.outside.notifications += 1;
    }
  }
}

function toNotification(e: EventSummary, route: NotificationFact['route']): NotificationFact {
  return {
    id: e.id,
    at: e.at,
    route,
    status: e.status,
    outcome: e.outcome,
    transaction_id: e.transaction_id,
  };
}

/**
 * A stored /user_auth callback as step 6 reads it (`full`: the whole event, when read). Its
 * verdict is the event's failed_check: the token's and the one answer judge's (issue 24), the
 * console's own answer and a forward target's alike, with the words recorded for it. Events
 * recorded before the answer judge kept a forward target's failures only in its verdicts: those
 * still fail the step (forward_ok), with their words.
 */
export function callbackFact(e: EventSummary, full: EventDetail | null): CallbackFact {
  let detail = full ? callbackDetail(full) : null;
  let forwardOk: boolean | null = null;
  if (full?.forward) {
    const bad = full.forward.verdicts.find((v) => v.status === 'failed');
    forwardOk = !bad && full.forward.status === 200;
    if (bad && e.failed_check === null) detail = `the forward target failed ${bad.id}: ${bad.detail}`;
    else if (detail !== null && bad?.id === e.failed_check)
      detail = `${detail} (the forward target's answer)`;
    else if (full.forward.error && detail === null)
      detail = `the forward target did not answer: ${full.forward.error}`;
  }
  return {
    id: e.id,
    at: e.at,
    status: e.status,
    failed_check: e.failed_check,
    obj: e.obj,
    sub: e.sub,
    detail,
    forward_ok: forwardOk,
    duration_ms: e.duration_ms,
  };
}
