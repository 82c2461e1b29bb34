/**
 * Recording (DESIGN.md "Bank endpoints": every request is an event): the events of callbacks,
 * notifications and requests refused before routing, and when they are appended.
 *
 * Durability: a notification's event is appended with `durable: true` (fsync'd) before its 200
 * (notifications.ts), so an acknowledged notification survives a crash. Callback events are
 * appended after the answer, without waiting for the disk: the 1 s budget is the service's.
 *
 * Speed (issue 11): a callback's event is built and appended only once the answers of the
 * current turn of the event loop are written (setImmediate, in a batch), and it is small: the raw
 * token (in the request's headers), the failed check and its detail, the summary, the response
 * as recorded and the JWKS state; the decoded token and the list of checks are rebuilt when the
 * event is read (callback-detail.ts).
 */
import type { EventSummary } from '../../contract/schemas/events';
import type { AnswerRoute } from '../answer';
import type { ClientErrorInfo, Reply } from '../http';
import type { JwksState } from '../jwt';
import { blankEvent, type NewEvent } from '../store';
import { recordVerdict } from './callback-detail';
import { judgeCallback } from './callback-verdict';
import type { ForwardOutcome } from './forward';
import { recordHeaders } from './intake';
import type { AnsweredCallback, BankState } from './state';

/** Tells the replay waiting for request `replay` (if any) how its event fared. */
export function settleReplay(
  state: BankState,
  replay: string | undefined,
  outcome: EventSummary | Error,
): void {
  state.replayWaiters.get(replay ?? '')?.(outcome);
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/** Appends without waiting for the disk; a replay waiting for this request gets the summary. */
export function recordLater(state: BankState, event: NewEvent, replay: string | undefined): void {
  const p = state.options.store.append(event).then(
    (summary) => settleReplay(state, replay, summary),
    (err: unknown) => settleReplay(state, replay, asError(err)),
  );
  state.pending.add(p);
  void p.finally(() => state.pending.delete(p));
}

/** Queues an answered callback; its event is built once the turn's answers are out (one setImmediate per turn). */
export function recordCallback(state: BankState, a: AnsweredCallback): void {
  if (state.answered.push(a) === 1) setImmediate(recordAnswered, state);
}

/** Builds and appends every callback event the last turn answered. */
export function recordAnswered(state: BankState): void {
  const batch = state.answered;
  state.answered = [];
  for (const a of batch) recordLater(state, callbackEvent(a), a.replay);
}

/** The recorded form of a forward exchange, with the answer judge's checks. */
function forwardRecord(forward: ForwardOutcome, verdicts: NonNullable<NewEvent['forward']>['verdicts']) {
  return {
    url: forward.url,
    status: forward.result.ok ? forward.result.status : null,
    duration_ms: forward.result.durationMs,
    error: forward.result.ok ? null : forward.result.message,
    verdicts,
  };
}

/**
 * A callback's event, with its one verdict (issue 24): the token's, then the answer judge's on
 * what was answered (the budget included), decided here, once, so every page reads failed_check.
 */
export function callbackEvent(a: AnsweredCallback): NewEvent {
  const { req, reply, verdict, forward, duration } = a;
  const judged = verdict
    ? judgeCallback({ route: a.path as AnswerRoute, verdict, reply, forward, durationMs: duration })
    : null;
  // blankEvent's object filled in place, not spread into a new literal: a spread kept several
  // times more garbage alive past two scavenges (docs/benchmarks.md, "Figures moved from code
  // comments"). The fields and their order (the stored JSON) stay blankEvent's.
  const event = blankEvent('callback', new Date(a.at).toISOString());
  event.path = a.path;
  event.method = a.method;
  event.status = reply.status;
  event.failed_check = judged?.failed ?? null;
  event.obj = verdict?.obj ?? null;
  event.sub = verdict?.sub ?? null;
  event.duration_ms = duration;
  event.warning = judged?.warning ?? null;
  event.remote = a.remote;
  event.request = { method: req.method, url: req.url, headers: recordHeaders(req.headers), body: null };
  event.response = { status: reply.status, headers: reply.headers, body: reply.recorded() };
  // The client's state as it is (a frozen snapshot shared until it changes), not a copy.
  event.jwks = verdict?.jwks.url ? (verdict.jwks as JwksState & { url: string }) : null;
  event.forward = forward ? forwardRecord(forward, judged?.forwardVerdicts ?? []) : null;
  // Issue 26: the environment whose service published the token's kid.
  event.environment = verdict?.environment ?? null;
  // The decoded token and the checks are rebuilt on read from the raw token and this.
  if (judged) event.data = recordVerdict(judged.detail);
  return event;
}

/** What a notification came to, before the store (notifications.ts). */
export interface NotificationResult {
  reply: Reply;
  /**
   * What the request was, before the store: a readable notification is `accepted`; the store
   * turns it into a `repeat` in the transaction that stores it (repeatCheck), the one place
   * that decides it, and nothing here grows with every transaction_id ever seen.
   */
  outcome: 'accepted' | 'rejected';
  transactionId: string | null;
  bodyText: string | null;
  forward: ForwardOutcome | null;
}

/** A notification's event (spec 4.3), whatever it came to. */
export function notificationEvent(input: {
  at: number;
  path: string;
  method: string;
  remote: string | null;
  req: AnsweredCallback['req'];
  duration: number;
  result: NotificationResult;
}): NewEvent {
  const { result, req, method } = input;
  const { reply } = result;
  return {
    ...blankEvent('notification', new Date(input.at).toISOString()),
    path: input.path,
    method,
    remote: input.remote,
    status: reply.status,
    outcome: result.outcome,
    transaction_id: result.transactionId,
    duration_ms: input.duration,
    request: { method, url: req.url, headers: recordHeaders(req.headers), body: result.bodyText },
    response: { status: reply.status, headers: reply.headers, body: reply.recorded() },
    forward: result.forward ? forwardRecord(result.forward, result.forward.verdicts) : null,
  };
}

/** A request node:http refused before routing (431 headers, 408 timeout, 400 malformed): an event too. */
export function clientErrorEvent(info: ClientErrorInfo, atMs: number): NewEvent {
  return {
    ...blankEvent('callback', new Date(atMs).toISOString()),
    status: info.status,
    remote: info.remote,
    duration_ms: 0,
    warning: `refused before routing: ${info.status}${info.code ? ` (${info.code})` : ''}`,
    response: {
      status: info.status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: info.body,
    },
  };
}
