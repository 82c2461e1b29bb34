/**
 * Gathers the walkthrough's facts from the stores that record real events: the key store, the
 * environment, the service's exchange history, the sandbox (counterparty and traces), the event
 * store (callbacks and notifications) and the walkthrough's own file. Each source that cannot be
 * read is reported on the step it proves, never thrown for the whole page.
 */
import type { EventDetail, EventSummary } from '../../contract/schemas/events';
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Trace } from '../../contract/schemas/sandbox';
import type { Environment } from '../../contract/schemas/service';
import type { WalkthroughReach } from '../../contract/schemas/walkthrough';
import type { CoreDeps } from '../core-types';
import { PROBE_PATH, registerUrls } from '../tunnel';
import type { CallbackFact, NotificationFact, WalkthroughFacts } from './derive';
import { NOTIFY_ROUTES } from './derive';
import type { Own, Progress } from './progress';

/** The customer the walkthrough signs in when the bank has none: an IBAN with a valid checksum. */
export const DEFAULT_OBJ = 'DE89370400440532013000';
/** Who acts: a technical user of the bank (spec 2.4 sub). */
export const DEFAULT_SUB = 'walkthrough@bank.example';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How many of the newest callbacks are read in full (for the 401's detail and forward verdicts). */
const DETAIL_LIMIT = 5;

export interface GatheredFacts extends WalkthroughFacts {
  progress: Progress;
  /** The bank listener's own URL (null when not listening here). */
  listenerUrl: string | null;
}

/** The failed check's words: the bank's recorded verdict (the budget has no body of its own), else the 401's body. */
function callbackDetail(body: string | null | undefined, data: unknown): string | null {
  const recorded = (data as { verdict?: { detail?: unknown } } | undefined)?.verdict?.detail;
  if (typeof recorded === 'string') return recorded;
  if (!body) return null;
  try {
    const value = JSON.parse(body) as { detail?: unknown };
    return typeof value.detail === 'string' ? value.detail : null;
  } catch {
    return null;
  }
}

/**
 * A real environment's road in (issue 14 item 5): the public URL in force and the last probe of
 * it are the tunnel service's (one rule: tunnel/service.ts), forward mode is the bank's. Without
 * a public URL the listener's own URL is what there is, with the reason it will not do.
 */
async function gatherReach(
  deps: CoreDeps,
  listenerUrl: string | null,
  notifyPrefix: string,
): Promise<WalkthroughReach> {
  const forwardUrl = await deps
    .bank()
    .then(async (b) => (await b.status()).forward.url)
    .catch(() => null);
  let status: Awaited<ReturnType<CoreDeps['tunnel']['status']>>;
  try {
    status = await deps.tunnel.status();
  } catch (err) {
    return {
      public_url: null,
      public_url_source: null,
      ...(listenerUrl
        ? registerUrls(listenerUrl, notifyPrefix)
        : { bank_auth_url: null, notification_urls: [] }),
      warning: `the public URL cannot be read: ${messageOf(err)}`,
      probe: null,
      forward_url: forwardUrl,
    };
  }
  const url = status.public_url;
  const probe = status.probe;
  // Only a probe of the URL in force counts: a tunnel re-made on another port must be tested again.
  const current =
    probe && (url ? probe.url?.startsWith(`${url}${PROBE_PATH}`) === true : probe.outcome === 'no_public_url')
      ? probe
      : null;
  let warning: string | null = null;
  if (!url && listenerUrl) {
    warning = status.listener.loopback_only
      ? `There is no public URL: ${listenerUrl} is this machine's loopback address, which the service cannot reach from its network. Start a tunnel (Bank page, or serve --tunnel) or enter the URL of your own front; register the listener's URL only if the service runs on this machine.`
      : `There is no public URL: the service must reach this machine directly at ${status.listener.reachable_on.join(', ')}. Register a URL on one of those addresses that the service's network can reach, or start a tunnel.`;
  }
  const shown = url ?? listenerUrl;
  return {
    public_url: url,
    public_url_source: status.public_url_source,
    ...(shown ? registerUrls(shown, notifyPrefix) : { bank_auth_url: null, notification_urls: [] }),
    warning,
    probe: current,
    forward_url: forwardUrl,
  };
}

export async function gatherFacts(
  deps: CoreDeps,
  env: Environment,
  progress: Progress,
): Promise<GatheredFacts> {
  const since = progress.reset_at ?? undefined;
  const obj = progress.obj ?? env.default_obj ?? DEFAULT_OBJ;
  const sub = progress.sub ?? env.default_sub ?? DEFAULT_SUB;

  let keys: KeyInfo[] = [];
  let keysError: string | null = null;
  try {
    keys = await deps.services.keys().list();
  } catch (err) {
    keysError = messageOf(err);
  }

  const own = progress.own;
  const ownTraces = new Set([
    ...own.sign_ins.map((x) => x.trace_id),
    ...own.notifications.map((x) => x.trace_id),
  ]);
  const outside = { traces: 0, callbacks: 0, notifications: 0 };

  let sandbox: WalkthroughFacts['sandbox'] = null;
  let traces: Trace[] = [];
  if (env.kind === 'sandbox') {
    try {
      const sb = await deps.sandbox();
      const status = await sb.status();
      const guid = env.counterparty_guid?.toLowerCase() ?? null;
      const counterparty = status.counterparties.find((c) => c.counterparty_guid === guid) ?? null;
      sandbox = { counterparty, error: null };
      if (counterparty) {
        // Only the walkthrough's own sign-ins and notifications prove (or fail) its steps; the
        // Sandbox page's traces are other traffic (issue 13 item 4).
        const all = await sb.traces({ counterparty_guid: counterparty.counterparty_guid, limit: 200 });
        traces = all.filter((t) => ownTraces.has(t.id));
        outside.traces = all.length - traces.length;
      }
    } catch (err) {
      sandbox = { counterparty: null, error: messageOf(err) };
    }
  }

  const listenerUrl = deps.listeners().bank ?? null;
  let notifyPrefix = '/api/svc/notify';
  try {
    notifyPrefix = (await (await deps.bank()).status()).notify_path_prefix;
  } catch {
    // the default prefix (spec 4.3)
  }

  const allExchanges = (
    await deps.services
      .service()
      .exchanges(1000)
      .catch(() => [])
  ).filter((e) => e.environment_id === env.id);
  // An authenticate proves step 4 only when the walkthrough made it (step 4, or the rotation's
  // proof with the next key): a refused token sent from the Service page is other traffic.
  const ownExchanges = new Set([
    ...own.exchange_ids,
    ...(progress.rotation?.steps.flatMap((st) => (st.exchange_id ? [st.exchange_id] : [])) ?? []),
  ]);
  const exchanges = allExchanges.filter((e) => e.operation !== 'authenticate' || ownExchanges.has(e.id));

  const callbacks: CallbackFact[] = [];
  const notifications: NotificationFact[] = [];
  try {
    const store = await deps.store();
    // `text` narrows to events naming the obj (a substring search); the exact match is ours.
    const cbPage = await store.query({ kind: 'callback', path: '/user_auth', text: obj, since, limit: 200 });
    // Sandbox: the callbacks the walkthrough's own sign-ins caused. A real service calls on its
    // own: the walkthrough's obj and sub are what tie its callbacks to the walkthrough.
    const ownCallbacks = new Set(own.sign_ins.flatMap((x) => (x.callback_id ? [x.callback_id] : [])));
    const mine = cbPage.events
      .filter((e) => (env.kind === 'sandbox' ? ownCallbacks.has(e.id) : e.obj === obj && e.sub === sub))
      .slice(0, 50);
    outside.callbacks = cbPage.events.length - mine.length;
    for (const [i, e] of mine.entries()) {
      const full = i < DETAIL_LIMIT ? await store.get(e.id).catch(() => null) : null;
      callbacks.push(callbackFact(e, full));
    }
    if (env.kind === 'sandbox') {
      // The walkthrough's own notifications, found by their transaction_id: a flood or a
      // malformed POST from outside cannot hide or fail them.
      const newest = new Map<string, Own['notifications'][number]>();
      for (const n of own.notifications) if (!newest.has(n.route)) newest.set(n.route, n);
      for (const n of newest.values()) {
        if (since && Date.parse(n.at) < Date.parse(since)) continue;
        const page = await store.query({ kind: 'notification', transaction_id: n.transaction_id, limit: 5 });
        for (const e of page.events) {
          const route = NOTIFY_ROUTES.find((r) => e.path === `${notifyPrefix}/${r}`);
          if (route) notifications.push(toNotification(e, route));
        }
      }
      const total = await store.query({ kind: 'notification', since, limit: 1 }).catch(() => ({ total: 0 }));
      outside.notifications = Math.max(0, total.total - notifications.length);
    } else {
      // Per route, so a flood on one route (a load test) cannot hide the others.
      for (const route of NOTIFY_ROUTES) {
        const page = await store.query({
          kind: 'notification',
          path: `${notifyPrefix}/${route}`,
          since,
          limit: 20,
        });
        for (const e of page.events) notifications.push(toNotification(e, route));
      }
    }
    notifications.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  } catch {
    // no event store: steps 6 and 7 stay pending, as nothing proves them
  }

  const reach = env.kind === 'real' ? await gatherReach(deps, listenerUrl, notifyPrefix) : null;

  return {
    env,
    resetAt: progress.reset_at,
    keys,
    keysError,
    sandbox,
    bankUrl: reach ? reach.bank_auth_url : listenerUrl,
    exchanges,
    composed: progress.composed,
    session: progress.session,
    callbacks,
    traces,
    notifications,
    rotation: progress.rotation,
    attempts: progress.attempts,
    reach,
    obj,
    sub,
    progress,
    listenerUrl,
    notifyPrefix,
    outside,
  };
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
  let detail = full ? callbackDetail(full.response?.body, full.data) : null;
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
