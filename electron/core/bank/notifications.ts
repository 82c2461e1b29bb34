/**
 * The notifications (spec 4.3; DESIGN.md "Bank endpoints"): POST {prefix}/pay-in, /pay-out and
 * /transfer, each stored durably before its 200, so an acknowledged notification is never lost.
 * A notification's path: routes.ts → {@link serveNotification} → its body judged (intake.ts) →
 * forward, behaviour or 200 → its event appended durably (recording.ts) → the answer sent.
 *
 * Threat model: the body is untrusted (bounded by http/body.ts: 413 past the limit); it is
 * judged by the body alone, whatever the Content-Type; nothing in it can crash the listener.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventSummary } from '../../contract/schemas/events';
import { answerOfExchange, judgeNotificationAnswer } from '../answer';
import { emptyReply, errorReply, HttpError, readBody, type Reply, sendReply } from '../http';
import type { Arrival } from './callbacks';
import { forwardRequest, passThrough, type ForwardOutcome } from './forward';
import { judgeNotificationBody } from './intake';
import { notificationEvent, type NotificationResult, settleReplay } from './recording';
import { relayNotification } from './relayed';
import { fixedStatusReply } from './replies';
import type { BankState } from './state';

/** The notifications a bank answers under its prefix (spec 4.3). */
export const NOTIFY_EVENTS: readonly string[] = ['pay-in', 'pay-out', 'transfer'];

type ReadNotification =
  | { ok: true; id: string; text: string }
  | { ok: false; reply: Reply; id: string | null; text: string | null };

/** Reads and judges a notification's body: its transaction_id, or the 400/413 it gets. */
export async function readNotification(req: IncomingMessage): Promise<ReadNotification> {
  let bytes: Buffer;
  try {
    bytes = await readBody(req);
  } catch (err) {
    if (err instanceof HttpError) {
      return {
        ok: false,
        reply: errorReply(err.status, err.code, err.message, err.headers),
        id: null,
        text: null,
      };
    }
    // The client went away mid-body: nobody reads the answer, but the attempt is recorded.
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, reply: errorReply(400, 'bad_request', why), id: null, text: null };
  }
  // Judged by the body alone, whatever the Content-Type (intake.ts, DESIGN.md).
  const judged = judgeNotificationBody(bytes);
  if (judged.ok) return judged;
  return {
    ok: false,
    reply: errorReply(400, 'bad_request', judged.detail),
    id: judged.id,
    text: judged.text,
  };
}

/**
 * A readable notification's answer: forwarded, or as a behaviour says (status, delay), or 200.
 * Null when neither forward mode nor a behaviour applies: the common path answers 200 at once,
 * without another async step (the notify bench's hot path, docs/benchmarks.md).
 */
function answerNotification(
  state: BankState,
  req: IncomingMessage,
  name: string,
  read: { id: string; text: string },
): Promise<NotificationResult> | null {
  const { behaviours, forward } = state.settings.get();
  if (forward.url) return forwardNotification(forward.url, req, read);
  const b = behaviours[name];
  if (!b?.delay_ms && (b?.status === undefined || b.status === 200)) return null;
  return behaved(b, name, read);
}

async function forwardNotification(
  url: string,
  req: IncomingMessage,
  read: { id: string; text: string },
): Promise<NotificationResult> {
  const outcome = await forwardRequest({
    base: url,
    path: req.url?.split('?')[0] ?? '',
    method: 'POST',
    // As the service sent it: none when it sent none.
    headers: req.headers['content-type'] ? { 'Content-Type': req.headers['content-type'] } : {},
    body: read.text,
  });
  return forwardedResult(outcome, read);
}

async function behaved(
  b: { delay_ms?: number | undefined; status?: number | undefined },
  name: string,
  read: { id: string; text: string },
): Promise<NotificationResult> {
  if (b.delay_ms) await new Promise<void>((resolve) => setTimeout(resolve, b.delay_ms));
  const reply =
    b.status !== undefined && b.status !== 200 ? fixedStatusReply(b.status, name) : emptyReply(200);
  return { reply, outcome: 'accepted', transactionId: read.id, bodyText: read.text, forward: null };
}

/**
 * A backend's answer to a notification (forward mode, or a team hub's laptop: DESIGN.md "Team
 * hub"), judged, and passed on once the notification is committed.
 */
function forwardedResult(outcome: ForwardOutcome, read: { id: string; text: string }): NotificationResult {
  outcome.verdicts = judgeNotificationAnswer(answerOfExchange(outcome.result));
  return {
    reply: passThrough(outcome),
    outcome: 'accepted',
    transactionId: read.id,
    bodyText: read.text,
    forward: outcome,
  };
}

/** A notification refused before the store (unknown name, wrong method, bad body). */
export function rejected(
  reply: Reply,
  transactionId: string | null = null,
  bodyText: string | null = null,
): NotificationResult {
  return { reply, outcome: 'rejected', transactionId, bodyText, forward: null };
}

/** No notification by this name under the prefix. */
export function unknownNotification(prefix: string, name: string): NotificationResult {
  return rejected(
    errorReply(
      404,
      'not_found',
      `no notification ${JSON.stringify(name)}; they are ${NOTIFY_EVENTS.map((n) => `${prefix}/${n}`).join(', ')}`,
    ),
  );
}

/** A notification path asked with another method than POST. */
export function notificationMethodRefused(path: string): NotificationResult {
  return rejected(errorReply(405, 'method_not_allowed', `${path} takes POST (spec 4.3)`, { Allow: 'POST' }));
}

/**
 * Records a notification's result durably, then sends its answer: spec 4.3 / DESIGN.md, on disk
 * before the answer, so an acknowledged notification is never lost; a 500 when it cannot be.
 */
export async function storeAndAnswer(
  state: BankState,
  req: IncomingMessage,
  res: ServerResponse,
  arrival: Arrival,
  result: NotificationResult,
): Promise<void> {
  const duration = Math.round((performance.now() - arrival.started) * 100) / 100;
  const event = notificationEvent({ ...arrival, req, duration, result });
  let summary: EventSummary;
  try {
    summary = await state.options.store.append(event, { durable: true, repeatCheck: true });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    sendReply(res, errorReply(500, 'internal', `the notification could not be stored: ${why}`));
    settleReplay(state, arrival.replay, err instanceof Error ? err : new Error(String(err)));
    return;
  }
  sendReply(res, result.reply);
  settleReplay(state, arrival.replay, summary);
}

/** Serves a notification route: read, answered, and stored before the answer is sent. */
export async function serveNotification(
  state: BankState,
  req: IncomingMessage,
  res: ServerResponse,
  arrival: Arrival,
  name: string,
): Promise<void> {
  const read = await readNotification(req);
  let result: NotificationResult;
  if (!read.ok) result = rejected(read.reply, read.id, read.text);
  else {
    // A team hub's route (relayed.ts): the laptop's answer is passed on after the commit below.
    const routed = await relayNotification(state, req, read.text, arrival);
    const answering = routed
      ? Promise.resolve(forwardedResult(routed, read))
      : answerNotification(state, req, name, read);
    result = answering
      ? await answering
      : {
          reply: emptyReply(200),
          outcome: 'accepted',
          transactionId: read.id,
          bodyText: read.text,
          forward: null,
        };
  }
  await storeAndAnswer(state, req, res, arrival, result);
}
