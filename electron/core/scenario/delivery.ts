/**
 * How a notification step reaches the bank (issue 28 item 3; DESIGN.md "Scenarios" and "Sandbox
 * service", notify `faults`): through the sandbox's delivery engine (sandbox/delivery, issue 27),
 * the one code path that delivers like the service: the retry ladder, duplicates spaced 200 ms or
 * at once, a lost acknowledgement, a timeout, all scaled by the run's `--time-scale`.
 *
 * A step waits for its delivery to end (delivered or escalated) and for every duplicate copy to
 * be recorded, then sees the attempts in the order they were recorded, each with its role.
 *
 * Threat model: the bank is untrusted; the engine reads each answer with a size cap and a time
 * limit (sandbox/delivery/attempt.ts) and the ladder is bounded (at most 10 attempts), so a step
 * always ends. The deliveries live in a folder of the run's own (a temporary one), never mixed
 * with the sandbox's.
 */
import {
  SCENARIO_COUNTERPARTY_GUID,
  type Delivery,
  type DeliveryFaults,
  type Ladder,
} from '../../contract/schemas/delivery';
import { DELIVERY_SETTING_DEFAULTS, DeliveryEngine } from '../sandbox';

/** One notification to deliver: where, what body, with which faults, on which ladder. */
export interface DeliveryRequest {
  url: string;
  body: string;
  event: Delivery['event'];
  transaction_id: string;
  faults: DeliveryFaults;
  /** `service` (the guide's ladder) or `once` (one attempt). */
  ladder: Ladder;
}

/** One attempt: the status the bank answered (null: nothing answered, or the answer was lost). */
export interface DeliveryAttempt {
  /** 1, 2, … in the order the attempts were recorded, copies included. */
  n: number;
  /** `first`, `first, ack lost`, `retry 2`, `duplicate`, `duplicate, at once`. */
  role: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryOutcome {
  /** `escalated`: the ladder ran out without a 2xx (the service would hand it to manual processing). */
  state: 'delivered' | 'escalated';
  attempts: DeliveryAttempt[];
}

/** What a notification step needs of a delivery engine. */
export interface NotificationDelivery {
  deliver(request: DeliveryRequest): Promise<DeliveryOutcome>;
  /** Stops the engine (attempts in flight are waited for); the run calls it once at its end. */
  close(): Promise<void>;
}

/** The counterparty a scenario's deliveries are filed under (the contract's, see there). */
const SCENARIO_COUNTERPARTY = SCENARIO_COUNTERPARTY_GUID;

const roleOf = (a: Delivery['attempts'][number], d: Delivery): string => {
  if (a.copy) return d.faults.concurrent ? 'duplicate, at once' : 'duplicate';
  if (a.n === 1) return d.faults.lost_ack ? 'first, ack lost' : 'first';
  return `retry ${a.n}`;
};

/** The delivery as a step judges it. */
function outcomeOf(d: Delivery): DeliveryOutcome {
  return {
    state: d.state === 'escalated' ? 'escalated' : 'delivered',
    attempts: d.attempts.map((a, i) => ({
      n: i + 1,
      role: roleOf(a, d),
      status: a.status,
      error: a.error,
      duration_ms: Math.round(a.duration_ms),
    })),
  };
}

/** Ended: off its ladder, and every duplicate copy recorded. */
const ended = (d: Delivery) =>
  d.state !== 'delivering' && d.attempts.filter((a) => a.copy).length >= (d.faults.duplicates ?? 0);

/**
 * Opens a delivery engine on `dataDir` with the service's ladder (the guide's waits, 10 attempts,
 * 5,000 ms timeout) scaled by `timeScale`.
 *
 * @example
 * const delivery = engineDelivery({ dataDir, timeScale: 0.01 });
 * const { state, attempts } = await delivery.deliver({ url, body, event: 'pay-in', transaction_id, faults: {}, ladder: 'service' });
 * await delivery.close();
 */
export function engineDelivery(options: {
  dataDir: string;
  timeScale: number;
  /** Every change of a delivery (an attempt recorded, its end): the page's progress (issue 27 item 4). */
  onChange?: (delivery: Delivery) => void;
}): NotificationDelivery {
  const waiting = new Map<string, (d: Delivery) => void>();
  const engine = DeliveryEngine.open({
    dataDir: options.dataDir,
    settings: () => DELIVERY_SETTING_DEFAULTS,
    timeScale: options.timeScale,
    onChange: (d) => {
      options.onChange?.(d);
      if (ended(d)) waiting.get(d.delivery_id)?.(d);
    },
  });
  return {
    async deliver(request) {
      const { delivery } = await engine.start({
        counterparty_guid: SCENARIO_COUNTERPARTY,
        transaction_id: request.transaction_id,
        event: request.event,
        url: request.url,
        body: request.body,
        ladder: request.ladder,
        faults: request.faults,
      });
      // Checked and registered in one turn: no change can slip between the two.
      const now = engine.get(delivery.delivery_id) ?? delivery;
      const done = ended(now)
        ? now
        : await new Promise<Delivery>((resolve) => waiting.set(delivery.delivery_id, resolve));
      waiting.delete(delivery.delivery_id);
      return outcomeOf(done);
    },
    close: () => engine.close(),
  };
}
