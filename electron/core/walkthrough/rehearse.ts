/**
 * Step 7's retry rehearsal (issue 27 item 5): "send it the way the service retries". One pay-in
 * goes through the sandbox's delivery engine (the one ladder, DESIGN.md "Sandbox service"
 * `notify`) with a lost acknowledgement: the bank stores the first attempt but its answer is
 * dropped as the status line arrives, so the ladder delivers the same transaction_id again. The
 * rehearsal passes when the bank answered that repeat 200 (the one notification answer judge's
 * verdict, recorded on the attempt), the delivery is `delivered` and, when the bank is this
 * console's own listener, the repeat is stored as `repeat` after one `accepted`. A bank that
 * refuses repeats (409) is the classic fault this catches: the service would retry it to
 * escalation and the operation would go to manual processing.
 */
import { ConsoleError } from '../../contract/errors';
import type { Delivery, DeliveryAttempt } from '../../contract/schemas/delivery';
import type { Environment } from '../../contract/schemas/service';
import type { RetryRehearsal } from '../../contract/schemas/walkthrough';
import type { CoreDeps } from '../core-types';
import type { ProgressStore } from './progress';

/** How long the rehearsal waits for the ladder's second attempt (its first wait is 1 s × scale). */
const REPEAT_WAIT_MS = 75_000;
const POLL_MS = 50;

/** The ladder's own attempts (copies left out), in order. */
const ladderAttempts = (d: Delivery): DeliveryAttempt[] => d.attempts.filter((a) => !a.copy);

/** Waits (bounded) until the delivery has its second attempt or has finished. */
async function awaitRepeat(deps: CoreDeps, deliveryId: string): Promise<Delivery> {
  const sb = await deps.sandbox();
  const deadline = Date.now() + REPEAT_WAIT_MS;
  for (;;) {
    const d = await sb.delivery({ delivery_id: deliveryId });
    if (ladderAttempts(d).length >= 2 || d.state !== 'delivering' || Date.now() > deadline) return d;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The bank's stored events of the transaction_id, oldest first (none when not stored here). */
async function storedEvents(deps: CoreDeps, transactionId: string): Promise<RetryRehearsal['events']> {
  try {
    const store = await deps.store();
    await store.flush();
    const page = await store.query({ kind: 'notification', transaction_id: transactionId, limit: 20 });
    return page.events
      .map((e) => ({ id: e.id, at: e.at, status: e.status, outcome: e.outcome }))
      .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  } catch {
    return [];
  }
}

/** The verdict: [ok, detail] from the delivery and what the bank stored. */
export function judgeRehearsal(
  d: Pick<Delivery, 'state' | 'attempts' | 'url' | 'transaction_id'>,
  events: RetryRehearsal['events'],
  ownBank: boolean,
): [boolean, string] {
  const tx = d.transaction_id;
  const [first, repeat] = ladderAttempts(d as Delivery);
  if (!first) return [false, 'the sandbox made no attempt'];
  if (!repeat) {
    return [false, `the ladder did not deliver ${tx} again (delivery ${d.state}); nothing proves the repeat`];
  }
  if (repeat.status === null) {
    return [false, `the repeat of ${tx} got no answer: ${repeat.error ?? 'nothing arrived'}`];
  }
  if (repeat.status !== 200 || repeat.failed_check) {
    const why =
      repeat.status !== 200 ? `answered the repeat ${repeat.status}` : `failed ${repeat.failed_check}`;
    return [
      false,
      `the bank ${why} for ${tx}; the service retries any answer but 200 (spec 4.3) until it escalates: a repeat must be answered 200 and applied once`,
    ];
  }
  if (d.state !== 'delivered') return [false, `the repeat was answered 200 but the delivery is ${d.state}`];
  if (!ownBank) {
    return [
      true,
      `the bank answered the repeat of ${tx} 200 and the delivery is delivered (the bank at ${d.url} is not this console's, so how it stored the repeat is not seen here)`,
    ];
  }
  const accepted = events.filter((e) => e.outcome === 'accepted');
  const repeats = events.filter((e) => e.outcome === 'repeat' && e.status === 200);
  if (accepted.length !== 1 || repeats.length < 1) {
    return [
      false,
      `the bank stored ${events.map((e) => e.outcome ?? 'unknown').join(', ') || 'nothing'} for ${tx}; expected one accepted, then the repeat as repeat`,
    ];
  }
  return [
    true,
    `the bank answered the repeat of ${tx} 200, stored it as repeat after one accepted, and the delivery is delivered`,
  ];
}

/**
 * Runs the rehearsal for the sandbox counterparty `guid` and answers its result.
 *
 * @example
 * const r = await rehearseRetry(deps, guid, Date.now);
 * r.ok; // true when the bank answered the repeat 200
 */
export async function rehearseRetry(
  deps: CoreDeps,
  guid: string,
  now: () => number,
): Promise<RetryRehearsal> {
  const sb = await deps.sandbox();
  const at = new Date(now()).toISOString();
  const sent = await sb.notify({ counterparty_guid: guid, event: 'pay-in', faults: { lost_ack: true } });
  const d = await awaitRepeat(deps, sent.delivery_id);
  const listener = deps.listeners().bank;
  const ownBank = listener !== undefined && d.url.startsWith(`${listener}/`);
  const events = ownBank ? await storedEvents(deps, sent.transaction_id) : [];
  const [ok, detail] = judgeRehearsal(d, events, ownBank);
  return {
    at,
    ok,
    detail,
    transaction_id: sent.transaction_id,
    delivery_id: sent.delivery_id,
    delivery_state: d.state,
    repeat_status: ladderAttempts(d)[1]?.status ?? null,
    events,
  };
}

/**
 * Step 7's action with `rehearse_retry`: the rehearsal on the sandbox environment, its result kept
 * (progress.ts `rehearsal`) for the step and the evidence pack. A real environment is refused
 * naming the field: a real service retries on its own schedule, not on request.
 */
export async function rehearseStep(
  deps: CoreDeps,
  progress: ProgressStore,
  env: Environment,
  now: () => number,
): Promise<{ ok: boolean; message: string }> {
  if (env.kind !== 'sandbox') {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      'the retry rehearsal runs on the sandbox environment: a real service retries on its own',
      { field: 'rehearse_retry' },
    );
  }
  if (!env.counterparty_guid) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      'this environment has no counterparty_guid yet: register first (step 2)',
      {
        field: 'counterparty_guid',
      },
    );
  }
  const result = await rehearseRetry(deps, env.counterparty_guid, now);
  await progress.update(env.id, (p) => {
    p.rehearsal = result;
  });
  return { ok: result.ok, message: result.detail };
}
