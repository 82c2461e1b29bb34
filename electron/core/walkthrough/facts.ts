/**
 * Gathers the walkthrough's facts from the stores that record real events: the key store, the
 * environment, the service's exchange history, the sandbox (counterparty and traces), the event
 * store (callbacks and notifications) and the walkthrough's own file. Each source that cannot be
 * read is reported on the step it proves, never thrown for the whole page.
 */
import type { EventSummary } from '../../contract/schemas/events';
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Trace } from '../../contract/schemas/sandbox';
import type { Environment } from '../../contract/schemas/service';
import type { CoreDeps } from '../core-deps';
import type { CallbackFact, NotificationFact, WalkthroughFacts } from './derive';
import { NOTIFY_ROUTES } from './derive';
import type { Progress } from './progress';

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

function callbackDetail(body: string | null | undefined): string | null {
  if (!body) return null;
  try {
    const value = JSON.parse(body) as { detail?: unknown };
    return typeof value.detail === 'string' ? value.detail : null;
  } catch {
    return null;
  }
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

  let sandbox: WalkthroughFacts['sandbox'] = null;
  let traces: Trace[] = [];
  if (env.kind === 'sandbox') {
    try {
      const sb = await deps.sandbox();
      const status = await sb.status();
      const guid = env.counterparty_guid?.toLowerCase() ?? null;
      const counterparty = status.counterparties.find((c) => c.counterparty_guid === guid) ?? null;
      sandbox = { counterparty, error: null };
      if (counterparty)
        traces = await sb.traces({ counterparty_guid: counterparty.counterparty_guid, limit: 50 });
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

  const exchanges = (
    await deps.services
      .service()
      .exchanges(1000)
      .catch(() => [])
  ).filter((e) => e.environment_id === env.id);

  const callbacks: CallbackFact[] = [];
  const notifications: NotificationFact[] = [];
  try {
    const store = await deps.store();
    // `text` narrows to events naming the obj (a substring search); the exact match is ours.
    const cbPage = await store.query({ kind: 'callback', path: '/user_auth', text: obj, since, limit: 200 });
    const mine = cbPage.events.filter((e) => e.obj === obj).slice(0, 50);
    for (const [i, e] of mine.entries()) {
      let detail: string | null = null;
      let forwardOk: boolean | null = null;
      if (i < DETAIL_LIMIT) {
        const full = await store.get(e.id).catch(() => null);
        detail = callbackDetail(full?.response?.body);
        if (full?.forward) {
          const bad = full.forward.verdicts.find((v) => v.status === 'failed');
          forwardOk = !bad && full.forward.status === 200;
          if (bad) detail = `the forward target failed ${bad.id}: ${bad.detail}`;
          else if (full.forward.error) detail = `the forward target did not answer: ${full.forward.error}`;
        }
      }
      callbacks.push(toCallback(e, detail, forwardOk));
    }
    // Per route, so a flood on one route (a load test) cannot hide the others.
    for (const route of NOTIFY_ROUTES) {
      const page = await store.query({
        kind: 'notification',
        path: `${notifyPrefix}/${route}`,
        since,
        limit: 20,
      });
      for (const e of page.events) {
        notifications.push({
          id: e.id,
          at: e.at,
          route,
          status: e.status,
          outcome: e.outcome,
          transaction_id: e.transaction_id,
        });
      }
    }
    notifications.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  } catch {
    // no event store: steps 6 and 7 stay pending, as nothing proves them
  }

  return {
    env,
    resetAt: progress.reset_at,
    keys,
    keysError,
    sandbox,
    bankUrl: env.kind === 'real' ? (progress.bank_url ?? listenerUrl) : listenerUrl,
    exchanges,
    composed: progress.composed,
    session: progress.session,
    callbacks,
    traces,
    notifications,
    rotation: progress.rotation,
    attempts: progress.attempts,
    probe: progress.probe,
    obj,
    sub,
    progress,
    listenerUrl,
    notifyPrefix,
  };
}

function toCallback(e: EventSummary, detail: string | null, forwardOk: boolean | null): CallbackFact {
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
