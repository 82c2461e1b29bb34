/**
 * A notification delivery read for people (issue 27 item 3): its attempts as a timeline (time,
 * status or error, duration, when the next one goes) and its progress in words ("attempt 3 of
 * 10, next at 12:00:07"). Pure functions of the contract's `Delivery`, shared by the Sandbox
 * page's timelines and the Scenarios page's progress (issue 27 item 4).
 */
import type { Delivery, DeliveryAttempt } from '../../electron/contract/schemas/delivery';

/** One row of a delivery's timeline. */
export interface TimelineRow {
  key: string;
  /** The ladder's attempt number; a duplicate copy carries the attempt it copies (1). */
  n: number;
  copy: boolean;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** A 2xx: the bank took it (the guide retries "an answer other than 2xx"). */
  accepted: boolean;
  /** When the ladder's next attempt went (or goes, for the last one still delivering); null when none follows. */
  next_at: string | null;
}

const acceptedStatus = (status: number | null) => status !== null && status >= 200 && status < 300;

/** The ladder's own attempts, copies left out, in the order they went. */
export function ladderAttempts(d: Delivery): DeliveryAttempt[] {
  return d.attempts.filter((a) => a.copy !== true).sort((a, b) => a.n - b.n);
}

/**
 * The delivery's attempts and copies in the order they went, each with the time of the attempt
 * that followed it: the next attempt's planned time once it went, the delivery's `next_at` for
 * the last one while it is still delivering.
 *
 * @example
 * timelineOf(delivery).map((r) => [r.n, r.status, r.next_at]);
 */
export function timelineOf(d: Delivery): TimelineRow[] {
  const ladder = ladderAttempts(d);
  const nextOf = (a: DeliveryAttempt): string | null => {
    if (a.copy === true) return null;
    const following = ladder.find((b) => b.n === a.n + 1);
    if (following) return following.planned_at ?? following.at;
    return a.n === ladder.at(-1)?.n && d.state === 'delivering' ? d.next_at : null;
  };
  return [...d.attempts]
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.n - b.n)
    .map((a, i) => ({
      key: `${a.copy === true ? 'copy' : 'attempt'}-${a.n}-${i}`,
      n: a.n,
      copy: a.copy === true,
      at: a.at,
      status: a.status,
      error: a.error,
      duration_ms: a.duration_ms,
      accepted: acceptedStatus(a.status),
      next_at: nextOf(a),
    }));
}

/** How many attempts this delivery's ladder allows: one for `once`, else the sandbox's setting. */
export function attemptsAllowed(d: Delivery, maxAttempts: number): number {
  return d.ladder === 'once' ? 1 : maxAttempts;
}

/** A delivery's progress, for a heading or a scenario step. */
export interface DeliveryProgress {
  state: Delivery['state'];
  /** Ladder attempts made so far. */
  attempts: number;
  /** Copies sent by `duplicates`. */
  copies: number;
  allowed: number;
  next_at: string | null;
}

export function progressOf(d: Delivery, maxAttempts: number): DeliveryProgress {
  const attempts = ladderAttempts(d).length;
  return {
    state: d.state,
    attempts,
    copies: d.attempts.length - attempts,
    allowed: attemptsAllowed(d, maxAttempts),
    next_at: d.state === 'delivering' ? d.next_at : null,
  };
}

/**
 * The progress in words, times as the clock shows them (`clock` formats an ISO instant).
 *
 * @example
 * progressWords(progressOf(d, 10), formatClock); // 'attempt 3 of 10 · next at 12:00:07'
 */
export function progressWords(p: DeliveryProgress, clock: (iso: string) => string): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const copies = p.copies > 0 ? ` (+ ${plural(p.copies, 'copy', 'copies')})` : '';
  if (p.state === 'delivered') return `delivered after ${plural(p.attempts, 'attempt', 'attempts')}${copies}`;
  if (p.state === 'escalated') {
    return `escalated to manual processing after ${plural(p.attempts, 'attempt', 'attempts')}${copies}`;
  }
  const next = p.next_at ? ` · next at ${clock(p.next_at)}` : '';
  return `attempt ${Math.max(p.attempts, 1)} of ${p.allowed}${next}${copies}`;
}
