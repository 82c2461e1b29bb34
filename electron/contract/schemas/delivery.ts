import { z } from 'zod';
import { Guid } from './ids';

/**
 * Notification delivery the way the service delivers (issue 27; DESIGN.md "Sandbox service"
 * `notify`): the ladder, the faults a notification can be sent with, and the delivery's record
 * with every attempt. The service's public guide: an answer other than 2xx is retried after 1, 2,
 * 4, 8, 16 and 32 s and then every minute, at most 10 attempts, then "manual processing".
 */

/** `service`: the guide's ladder (the default); `once`: one attempt, never retried. */
export const Ladder = z.enum(['service', 'once']);
export type Ladder = z.infer<typeof Ladder>;

/** The guide's waits before attempts 2…10, in seconds. */
export const SERVICE_LADDER_WAITS_SECONDS: readonly number[] = [1, 2, 4, 8, 16, 32, 60, 60, 60];
/** The guide's most attempts, the first included. */
export const SERVICE_LADDER_MAX_ATTEMPTS = 10;
/** No answer within this long counts as no answer (DESIGN.md: default 5,000 ms). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 5000;
/** The spacing of `duplicates` copies when they are not `concurrent` (DESIGN.md: 200 ms). */
export const DUPLICATE_SPACING_MS = 200;

const TIMEOUT_WORDS = 'must be a whole number of milliseconds from 100 to 30000';
/** How long an attempt waits for an answer (DESIGN.md: 100–30,000 ms), a fault's and the setting's. */
export const DeliveryTimeoutMs = z
  .number({ error: TIMEOUT_WORDS })
  .int(TIMEOUT_WORDS)
  .min(100, TIMEOUT_WORDS)
  .max(30_000, TIMEOUT_WORDS);

/** Faults on demand (issue 27 item 2), each chosen per notification. */
export const DeliveryFaults = z.strictObject({
  /** N more copies of the same body, spaced 200 ms (or all at once with `concurrent`). */
  duplicates: z
    .number({ error: 'must be a whole number of copies from 0 to 10' })
    .int('must be a whole number of copies from 0 to 10')
    .min(0, 'must be a whole number of copies from 0 to 10')
    .max(10, 'must be a whole number of copies from 0 to 10')
    .optional(),
  concurrent: z.boolean().optional(),
  /** The first attempt's connection is closed as the bank's status line arrives. */
  lost_ack: z.boolean().optional(),
  /** No answer within this long counts as no answer (default: the setting, 5,000 ms). */
  timeout_ms: DeliveryTimeoutMs.optional(),
});
export type DeliveryFaults = z.infer<typeof DeliveryFaults>;

export const DeliveryState = z.enum(['delivering', 'delivered', 'escalated']);
export type DeliveryState = z.infer<typeof DeliveryState>;

/** One POST of the notification: when, what answered (null: nothing did), how long. */
export const DeliveryAttempt = z.object({
  n: z.number().int().min(1),
  at: z.string(),
  /** The HTTP status, null when nothing answered (refused, timed out, the answer lost). */
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
  /** When the ladder planned this attempt (ISO): `at` minus this is the scheduler's error. */
  planned_at: z.string().optional(),
  /** A copy sent by `duplicates` rather than an attempt of the ladder. */
  copy: z.boolean().optional(),
  /** The one answer judge's verdict of the answer: the first failed check, null when it passed. */
  failed_check: z.string().nullable().optional(),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const NotifyEventName = z.enum(['pay-in', 'pay-out', 'transfer']);

/** GET /sandbox/v1/deliveries/{delivery_id} (DESIGN.md, fixed). */
export const Delivery = z.object({
  delivery_id: z.string(),
  counterparty_guid: z.string(),
  transaction_id: z.string(),
  event: NotifyEventName,
  url: z.string(),
  state: DeliveryState,
  /** The next attempt's planned time (ISO), null once delivered or escalated. */
  next_at: z.string().nullable(),
  attempts: z.array(DeliveryAttempt),
  created_at: z.string(),
  ladder: Ladder,
  faults: DeliveryFaults,
});
export type Delivery = z.infer<typeof Delivery>;

export const DeliveriesInput = z.object({
  counterparty_guid: Guid.optional(),
  state: DeliveryState.optional(),
  /** Only the deliveries of one transaction_id (any case). */
  transaction_id: z.string().max(100).optional(),
});
export type DeliveriesInput = z.infer<typeof DeliveriesInput>;

/**
 * The counterparty a scenario run's own deliveries are filed under (issue 28: a run has none, the
 * bank under test is given by URL). Their `sandbox.attempted` events carry it, so the Scenarios
 * page follows a run's notification steps by it and the Sandbox page leaves them out.
 */
export const SCENARIO_COUNTERPARTY_GUID = '00000000-0000-0000-0000-000000000000';

/** The newest this many are listed (DESIGN.md). */
export const DELIVERIES_LIST_MAX = 500;

/** One more notification of a `sequence`, sent after the one before it (reordering). */
export const SequenceStep = z.strictObject({
  event: NotifyEventName,
  to: z.enum(['sender', 'receiver']).optional(),
});
