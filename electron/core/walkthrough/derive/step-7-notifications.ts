/**
 * Step 7, notifications: one stored 200 per route. `reachable`: step 5 is done.
 */
import { NOTIFY_ROUTES, type NotificationFact, type NotifyRoute } from '../fact-types';
import { TRACE_FIXES, UNREACHED } from './fixes';
import { type DeriveContext, draft, type Draft, later, traceEnd, traceFailure } from './shared';

/** Each route's verdict: received (its newest good one), failed (its refusal), or neither yet. */
interface RouteTally {
  received: NotifyRoute[];
  /** "route: answered 400 (rejected)" per failed route. */
  failed: string[];
  /** The events that decided each route. */
  ids: string[];
  /** When the newest received one arrived. */
  at: string | null;
}

/** The notifications since the reset, route by route. */
export function tallyRoutes(ctx: DeriveContext): RouteTally {
  const { facts, sandbox, since } = ctx;
  const notes = facts.notifications.filter((n) => since(n.at));
  const good = (n: NotificationFact) => n.status === 200 && n.outcome !== 'rejected';
  const received: NotifyRoute[] = [];
  const failed: string[] = [];
  const ids: string[] = [];
  let at: string | null = null;
  for (const route of NOTIFY_ROUTES) {
    const mine = notes.filter((n) => n.route === route);
    const ok = mine.find(good);
    const last = mine[0];
    // The walkthrough's own notifications (sandbox): its latest attempt per route decides. A real
    // service's are not the walkthrough's to send: a route once received stays received, and a
    // refused POST (from anyone) fails it only while nothing good has arrived.
    const refusedLast = sandbox ? last && !good(last) && later(last.at, ok?.at) : last && !ok && !good(last);
    if (refusedLast && last) {
      failed.push(`${route}: answered ${last.status ?? '?'} (${last.outcome ?? 'not stored'})`);
      ids.push(last.id);
    } else if (ok) {
      received.push(route);
      ids.push(ok.id);
      if (at === null || later(ok.at, at)) at = ok.at;
    }
  }
  return { received, failed, ids, at };
}

/**
 * Derives step 7 from the notifications and notify traces since the reset.
 *
 * @example
 * const d = notificationsStep(ctx, callbacks.state === 'done');
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function notificationsStep(ctx: DeriveContext, reachable: boolean): Draft {
  const { facts, sandbox, since } = ctx;
  const { received, failed, ids, at } = tallyRoutes(ctx);
  const lastReceived = at;
  const failedTrace = facts.traces.find((t) => t.kind === 'notify' && since(t.at) && !t.ok) ?? null;
  const lastNotify = facts.traces.find((t) => t.kind === 'notify' && since(t.at)) ?? null;
  let d: Draft;
  if (failed.length > 0) {
    d = draft('failed', `The bank endpoints refused ${failed.length} notification(s).`, {
      reason: failed.join('; '),
      fix: 'A notification is {"transaction_id": "<uuid>"} answered 200 (spec 4.3): see the Notifications page, and the Bank page for behaviours or forward mode.',
      event_ids: ids,
    });
  } else if (failedTrace && failedTrace === lastNotify && later(traceEnd(failedTrace), lastReceived)) {
    const f = traceFailure(failedTrace);
    d = draft('failed', 'The sandbox could not deliver a notification.', {
      reason: f.detail,
      fix: TRACE_FIXES[f.id] ?? 'See the trace on the Sandbox page.',
      at: failedTrace.at,
    });
  } else if (received.length === NOTIFY_ROUTES.length) {
    d = draft('done', 'pay-in, pay-out and transfer were each stored and answered 200.', {
      at,
      event_ids: ids,
    });
  } else {
    const missing = NOTIFY_ROUTES.filter((r) => !received.includes(r));
    const got = received.length > 0 ? `Received ${received.join(', ')}; ` : '';
    d = sandbox
      ? draft('pending', `${got}not yet ${missing.join(', ')}.`, { event_ids: ids })
      : !reachable
        ? draft('pending', `${got}${UNREACHED}`, { event_ids: ids })
        : draft(
            'waiting',
            `${got}${got ? 'waiting' : 'Waiting'} for ${missing.join(', ')} from the service: the service team sends them on their side.`,
            {
              waiting_for: `the service team to send ${missing.join(', ')} (send them the message below), to ${facts.bankUrl ?? '{bank url}'}${facts.notifyPrefix ?? '/api/svc/notify'}/…`,
              event_ids: ids,
            },
          );
  }
  for (const route of NOTIFY_ROUTES) {
    d.facts.push({ label: route, value: received.includes(route) ? 'received' : 'not yet' });
  }
  if (sandbox && facts.outside && facts.outside.notifications > 0) {
    d.facts.push({
      label: 'other traffic',
      value: `${facts.outside.notifications} other notification(s) since the reset: on the Notifications page, not the walkthrough's, so they do not decide this step`,
    });
  }
  if (sandbox) applyRehearsal(ctx, d);
  d.action = sandbox ? 'Send pay-in, pay-out and transfer' : 'Check again';
  return d;
}

/**
 * The retry rehearsal's result on the step (issue 27 item 5): a fact, its events, and, while it
 * is the newest word, a failure: a bank that refuses the repeat fails what step 7 proves.
 */
export function applyRehearsal(ctx: DeriveContext, d: Draft): void {
  const r = ctx.facts.rehearsal;
  if (!r || !ctx.since(r.at)) return;
  d.facts.push({ label: 'retry rehearsal', value: `${r.ok ? 'passed' : 'failed'}: ${r.detail}` });
  d.event_ids.push(...r.events.map((e) => e.id).filter((id) => !d.event_ids.includes(id)));
  if (!r.ok && d.state !== 'failed' && later(r.at, d.at)) {
    Object.assign(d, {
      state: 'failed',
      summary: 'The retry rehearsal failed: the bank did not answer the repeated notification 200.',
      reason: r.detail,
      fix: 'Answer a transaction_id seen before with 200 and apply it once (spec 4.3; the service retries any other answer), then rehearse again.',
      at: r.at,
    });
  }
}
