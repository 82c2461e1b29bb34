/**
 * Balance-change notifications on demand (spec 4.3, 6): POST {url}{prefix}/{event} with
 * `{"transaction_id": "<uuid>"}`. pay-in goes to the receiving bank (bank_receiver_url),
 * pay-out to the sending bank (bank_sender_url), transfer to the side asked for. The prefix is
 * the setting `notify_path_prefix` (spec: /api/svc/notify; the public guide: /api/dcm/notify).
 */
import { randomUUID } from 'node:crypto';
import type {
  Counterparty,
  MalformedNotification,
  NotifyInput,
  NotifyResult,
  SandboxSettings,
} from '../../contract/schemas/sandbox';
import { badRequest } from './errors';
import type { DeliveryEngine } from './delivery';
import { joinUrl } from './sign-in-flow';
import { traceBody, traceHeaders, TraceBuilder } from './trace';
import { userAgent } from './user-agent';

export interface NotifyDeps {
  settings: () => SandboxSettings;
  now: () => number;
  /** Delivers on the ladder and records each attempt (delivery/engine.ts). */
  deliveries: DeliveryEngine;
}

type Side = 'sender' | 'receiver';
const FIELD: Record<Side, 'bank_sender_url' | 'bank_receiver_url'> = {
  sender: 'bank_sender_url',
  receiver: 'bank_receiver_url',
};

/** Which bank a notification goes to (spec 6); BAD_ARGUMENT naming `to` when it cannot tell. */
export function sideFor(event: NotifyInput['event'], to: Side | undefined): Side {
  const fixed: Side | null = event === 'pay-in' ? 'receiver' : event === 'pay-out' ? 'sender' : null;
  if (fixed) {
    if (to !== undefined && to !== fixed) {
      throw badRequest(
        `to: a ${event} notification always goes to the ${fixed === 'receiver' ? 'receiving' : 'sending'} bank (spec 6); leave "to" out or set it to "${fixed}"`,
        'to',
      );
    }
    return fixed;
  }
  if (to === undefined) {
    throw badRequest(
      'to is required for a transfer notification: "sender" or "receiver" (spec 6: either bank)',
      'to',
    );
  }
  return to;
}

/**
 * The malformed bodies (issue 13, item 6), each breaking one rule of spec 2.7 and nothing else:
 * still sent as application/json to the right path, so the bank's answer judges the body alone.
 */
const MALFORMED_BODY: Record<MalformedNotification, (transactionId: string) => string> = {
  'not-json': (id) => `transaction_id=${id}`,
  'no-transaction-id': (id) => JSON.stringify({ transactionId: id }),
  'bad-uuid': (id) => JSON.stringify({ transaction_id: `tx-${id.replaceAll('-', '').slice(0, 12)}` }),
};

/**
 * A malformed body of that kind for `transactionId`: what the sandbox sends, and what a scenario's
 * malformed notification step sends (one maker of the bad bodies).
 */
export function malformedBody(kind: MalformedNotification, transactionId: string): string {
  return MALFORMED_BODY[kind](transactionId);
}

/** The answer expected, as [passed?, detail]: 200 for a good notification, a 4xx refusal for a malformed one. */
function judgeStatus(status: number, malformed: MalformedNotification | undefined): [boolean, string] {
  if (malformed === undefined) {
    return status === 200
      ? [true, 'the bank answered 200']
      : [false, `the bank answered ${status}; spec 4.3 expects 200 OK once it has taken the notification`];
  }
  return status >= 400 && status < 500
    ? [true, `the bank refused the ${malformed} body with ${status}`]
    : [
        false,
        `the bank answered ${status} to a ${malformed} body; it should refuse it with 400 (spec 2.7: the body is {"transaction_id": "<uuid>"})`,
      ];
}

/** Where a notification of `event` (to `to`) goes for this counterparty; BAD_ARGUMENT naming the missing URL. */
function targetUrl(
  deps: NotifyDeps,
  counterparty: Counterparty,
  event: NotifyInput['event'],
  to: Side | undefined,
): { side: Side; url: string } {
  const side = sideFor(event, to);
  const field = FIELD[side];
  const base = counterparty[field];
  if (!base) {
    throw badRequest(
      `the counterparty has no ${field}, where ${event} notifications go; set it with PATCH /sandbox/v1/counterparties/${counterparty.counterparty_guid}`,
      field,
    );
  }
  return { side, url: joinUrl(base, `${deps.settings().notify_path_prefix}/${event}`) };
}

/**
 * Sends one notification the way the service does (issue 27): a delivery on its ladder
 * (delivery/engine.ts), answered once the first attempt is judged, with a trace of that attempt.
 * With `sequence`, the later notifications of the same transaction_id follow, each once the one
 * before has had its first attempt judged. A missing URL for a side is BAD_ARGUMENT naming the
 * field; a bank that cannot be reached is a result with `status: null` and `error`.
 */
export async function runNotify(
  deps: NotifyDeps,
  counterparty: Counterparty,
  input: NotifyInput,
): Promise<NotifyResult> {
  const { side, url } = targetUrl(deps, counterparty, input.event, input.to);
  const later = (input.sequence ?? []).map((step) => ({
    ...step,
    ...targetUrl(deps, counterparty, step.event, step.to),
  }));
  if (input.malformed !== undefined && input.transaction_id !== undefined) {
    throw badRequest(
      'transaction_id: a malformed notification carries no valid transaction_id; leave out one of transaction_id and malformed',
      'transaction_id',
    );
  }
  const transactionId = input.transaction_id ?? randomUUID();
  const body =
    input.malformed !== undefined
      ? MALFORMED_BODY[input.malformed](transactionId)
      : JSON.stringify({ transaction_id: transactionId });
  const what = input.malformed !== undefined ? `a ${input.malformed} ${input.event}` : input.event;
  const headers = { 'Content-Type': 'application/json', 'User-Agent': userAgent() };

  const statusTitle = input.malformed !== undefined ? 'refused with HTTP 400' : 'HTTP status 200';
  const trace = new TraceBuilder('notify', counterparty.counterparty_guid, deps.now);
  const base = {
    counterparty_guid: counterparty.counterparty_guid,
    transaction_id: transactionId,
    body,
    ladder: input.ladder,
  };
  const { delivery, first } = await deps.deliveries.start({
    ...base,
    event: input.event,
    url,
    faults: input.faults,
  });
  const sequence: NonNullable<NotifyResult['sequence']> = [];
  for (const step of later) {
    const next = await deps.deliveries.start({ ...base, event: step.event, url: step.url });
    sequence.push({
      delivery_id: next.delivery.delivery_id,
      event: step.event,
      url: step.url,
      status: next.first.status,
      error: next.first.error,
    });
  }
  const request = { method: 'POST', url, headers, body };
  const common = {
    transaction_id: transactionId,
    delivery_id: delivery.delivery_id,
    url,
    ...(later.length > 0 ? { sequence } : {}),
  };
  if (first.status === null) {
    const error = first.error ?? 'no answer';
    trace.step('delivered', `POST ${what} to the ${side} bank`, 'failed', error, {
      duration_ms: first.durationMs,
      request,
    });
    trace.step('status', statusTitle, 'skipped', 'not judged: there is no answer');
    return { ...common, status: null, duration_ms: first.durationMs, error, trace: trace.finish() };
  }
  trace.step(
    'delivered',
    `POST ${what} to the ${side} bank`,
    'passed',
    `${input.malformed !== undefined ? `body ${body}` : `transaction_id ${transactionId}`} delivered; the bank answered ${first.status} in ${Math.round(first.durationMs)} ms`,
    {
      duration_ms: first.durationMs,
      request,
      response: {
        status: first.status,
        headers: traceHeaders(first.responseHeaders ?? {}),
        body: traceBody(first.responseBody, false),
      },
    },
  );
  const [passed, detail] = judgeStatus(first.status, input.malformed);
  trace.step('status', statusTitle, passed ? 'passed' : 'failed', detail);
  return {
    ...common,
    status: first.status,
    duration_ms: first.durationMs,
    error: null,
    trace: trace.finish(),
  };
}
