/**
 * How a notification step reaches the bank (DESIGN.md "Sandbox service", notify `faults`): the
 * narrow interface a step needs (send one notification with its faults, learn how each attempt
 * went) and, for now, a plain HTTP implementation of it.
 *
 * The sandbox's delivery engine (issue 27: the service's retry ladder, lost acks, timeouts,
 * `--time-scale`) is to implement {@link NotificationDelivery} in its place; until it lands this
 * one makes the first attempt, the duplicates (spaced 200 ms, or all at once), and after a lost
 * acknowledgement one more attempt with the same body, as the service's ladder would next.
 *
 * Threat model: the bank is untrusted: each answer is read with a size cap and a time limit
 * (http/exchange) and only its status is kept.
 */
import http from 'node:http';
import https from 'node:https';
import type { DeliveryFaults } from '../../contract/schemas/scenario';
import { exchange } from '../http';

/** One notification to deliver: where, what body, with which faults. */
export interface DeliveryRequest {
  url: string;
  body: string;
  faults: DeliveryFaults;
  /** 0 < F ≤ 1: multiplies every wait and timeout (`--time-scale`). */
  timeScale: number;
}

/** One attempt: the status the bank answered (null: nothing answered, or the answer was lost). */
export interface DeliveryAttempt {
  n: number;
  /** `first`, `duplicate`, `after lost ack`. */
  role: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryOutcome {
  attempts: DeliveryAttempt[];
}

/** What a notification step needs of a delivery engine. */
export interface NotificationDelivery {
  deliver(request: DeliveryRequest): Promise<DeliveryOutcome>;
}

/** The service's default delivery timeout (DESIGN.md: 5,000 ms). */
const DEFAULT_TIMEOUT_MS = 5000;
/** Duplicates are spaced 200 ms apart unless concurrent (DESIGN.md notify `faults`). */
const DUPLICATE_SPACING_MS = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const HEADERS = { 'Content-Type': 'application/json' };

/** One POST whose connection is closed as soon as the status line arrives (`lost_ack`). */
function postLosingAck(
  url: string,
  body: string,
  giveUpMs: number,
): Promise<Omit<DeliveryAttempt, 'n' | 'role'>> {
  const started = performance.now();
  const target = new URL(url);
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const done = (status: number | null, error: string) =>
      resolve({ status, error, duration_ms: Math.round(performance.now() - started) });
    const req = lib.request(target, { method: 'POST', headers: HEADERS, agent: false }, (res) => {
      req.destroy();
      done(null, `the acknowledgement (${res.statusCode}) was lost: the connection closed as it arrived`);
    });
    req.setTimeout(giveUpMs, () => {
      req.destroy();
      done(null, `no answer within ${giveUpMs} ms`);
    });
    req.on('error', (err) => done(null, err.message));
    req.end(body);
  });
}

/**
 * Delivery over plain HTTP: the first attempt (its ack lost when `lost_ack`, then sent again),
 * then the duplicates.
 *
 * @example
 * const outcome = await httpDelivery.deliver({ url, body, faults: { duplicates: 2 }, timeScale: 1 });
 */
export const httpDelivery: NotificationDelivery = {
  async deliver({ url, body, faults, timeScale }) {
    const giveUpMs = Math.max(100, Math.round((faults.timeout_ms ?? DEFAULT_TIMEOUT_MS) * timeScale));
    const attempts: DeliveryAttempt[] = [];
    const post = async (role: string): Promise<DeliveryAttempt> => {
      const r = await exchange({ method: 'POST', url, headers: HEADERS, body, giveUpMs });
      return {
        n: 0,
        role,
        status: r.ok ? r.status : null,
        error: r.ok ? null : r.message,
        duration_ms: Math.round(r.durationMs),
      };
    };
    const push = (a: DeliveryAttempt) => attempts.push({ ...a, n: attempts.length + 1 });
    if (faults.lost_ack) {
      push({ n: 0, role: 'first, ack lost', ...(await postLosingAck(url, body, giveUpMs)) });
      push(await post('again after the lost ack'));
    } else {
      push(await post('first'));
    }
    const copies = faults.duplicates ?? 0;
    if (faults.concurrent) {
      const all = await Promise.all(Array.from({ length: copies }, () => post('duplicate, at once')));
      all.forEach(push);
    } else {
      for (let i = 0; i < copies; i++) {
        await sleep(DUPLICATE_SPACING_MS * timeScale);
        push(await post('duplicate'));
      }
    }
    return { attempts };
  },
};
