/**
 * Notification steps (DESIGN.md "Scenarios", spec 4.3): the runner plays the service and POSTs
 * `{"transaction_id": "<uuid>"}` to `${notifyUrl}${prefix}/<event>` through a delivery engine
 * with the step's faults (duplicates, at once or spaced, a lost acknowledgement, a timeout). A
 * valid notification must be answered 200 at every attempt that got an answer, the copies
 * included (spec 4.3: the same transaction_id again is still 200); a malformed body (the
 * sandbox's own malformed bodies) must be refused with a 4xx.
 */
import { randomUUID } from 'node:crypto';
import type { NotificationStep } from '../../contract/schemas/scenario';
import { malformedBody } from '../sandbox';
import type { RunContext, StepOutcome } from './context';
import type { DeliveryAttempt } from './delivery';
import { SPEC_NOTIFY_PREFIX } from '../../contract/schemas/service-paths';

/** The spec's notification path prefix (spec 4.3). */
/** Spec 4.3's prefix, where a scenario names none. */
export const DEFAULT_NOTIFY_PREFIX = SPEC_NOTIFY_PREFIX;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const attemptText = (a: DeliveryAttempt) =>
  `#${a.n} ${a.role}: ${a.status === null ? `no answer (${a.error})` : `${a.status}`} in ${a.duration_ms} ms`;

/**
 * Runs a notification step; `transactionId` is the resolved reference, or undefined for a fresh
 * one. A reference that is not a UUID fails the step (the file said so), naming it.
 *
 * @example
 * const outcome = await runNotifyStep(ctx, step, '/api/svc/notify', undefined);
 */
export async function runNotifyStep(
  ctx: RunContext,
  step: NotificationStep,
  prefix: string,
  transactionId: string | undefined,
): Promise<StepOutcome> {
  const id = transactionId ?? randomUUID();
  if (step.malformed === undefined && !UUID.test(id)) {
    return {
      status: 'failed',
      detail: `transaction_id ${JSON.stringify(id)} is not a UUID (spec 2.7); fix the step's transaction_id`,
      failed_check: 'transaction_id',
    };
  }
  const url = `${ctx.target.notifyUrl}${prefix}/${step.event}`;
  const body =
    step.malformed === undefined ? JSON.stringify({ transaction_id: id }) : malformedBody(step.malformed, id);
  // A malformed body is sent once by default: the bank must refuse it, and the ladder would
  // retry a refusal like any other failure (sandbox/delivery/ladder.ts).
  const ladder = step.ladder ?? (step.malformed === undefined ? 'service' : 'once');
  const { state, attempts } = await ctx.delivery.deliver({
    url,
    body,
    event: step.event,
    transaction_id: id,
    faults: step.faults ?? {},
    ladder,
  });
  const expect = step.expect ?? (step.malformed === undefined ? 'accepted' : 'refused');
  const sent = `POST ${prefix}/${step.event} ${step.malformed === undefined ? `transaction_id ${id}` : `a ${step.malformed} body`}`;
  const log = attempts.map(attemptText).join('; ');
  const answeredAttempts = attempts.filter((a) => a.status !== null);
  const outputs = { transaction_id: id };
  if (expect === 'refused') {
    const first = answeredAttempts[0];
    const ok = first !== undefined && first.status! >= 400 && first.status! < 500;
    return ok
      ? { status: 'passed', detail: `${sent}: refused as expected (${log})`, failed_check: null, outputs }
      : {
          status: 'failed',
          detail: `${sent}: expected a 4xx refusal (spec 2.7); ${log}`,
          failed_check: 'status',
        };
  }
  const wrong = answeredAttempts.find((a) => a.status !== 200);
  if (answeredAttempts.length === 0 || wrong || state === 'escalated') {
    const why =
      answeredAttempts.length === 0
        ? 'no attempt was answered'
        : wrong
          ? `attempt #${wrong.n} (${wrong.role}) was answered ${wrong.status}; spec 4.3 expects 200 for every delivery of a transaction_id, repeats included`
          : `the delivery escalated (its ${ladder} ladder ran out without a 2xx: the service would hand it to manual processing)`;
    return {
      status: 'failed',
      detail: `${sent}: ${why}; ${log}`,
      failed_check: answeredAttempts.length === 0 ? 'reachable' : wrong ? 'status' : 'delivered',
      outputs,
    };
  }
  return { status: 'passed', detail: `${sent}: every answer 200 (${log})`, failed_check: null, outputs };
}
