/**
 * The retry ladder (issue 27; DESIGN.md "Sandbox service" `notify`): what the service's public
 * guide says it does with a notification the bank did not take. An answer other than 2xx, or no
 * answer within the timeout, is retried after 1, 2, 4, 8, 16 and 32 s and then every 60 s, at
 * most 10 attempts in all, after which the delivery is `escalated` ("manual processing"). A 4xx
 * is retried like any other failure. The waits, the count and the timeout are sandbox settings
 * with the guide's values as defaults; `--time-scale F` multiplies every wait and timeout.
 *
 * Pure functions of numbers: the scheduler (scheduler.ts) and the engine (engine.ts) call them,
 * and so can anything else that plays the ladder (issue 28's scenarios).
 */
import type { Ladder } from '../../../contract/schemas/delivery';

/** The ladder's numbers, as the sandbox's settings hold them. */
export interface LadderSettings {
  /** Waits before attempts 2, 3, …, in seconds; past the list its last wait repeats. */
  delivery_waits_seconds: readonly number[];
  /** The most attempts, the first included. */
  delivery_max_attempts: number;
  /** No answer within this long (ms) counts as no answer. */
  delivery_timeout_ms: number;
}

/**
 * The shortest timeout a scaled delivery gets: at `--time-scale 0.01` the guide's 5 s would be
 * 50 ms, less than a loaded shared CI machine may take to answer on loopback; a hang is still
 * caught, one second later.
 */
export const MIN_SCALED_TIMEOUT_MS = 1000;

/** Whether the bank took the notification: any 2xx (the guide retries "an answer other than 2xx"). */
export function accepted(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/**
 * How long to wait (ms, scaled) after attempt `n` (1-based) failed before attempt n + 1.
 *
 * @example
 * waitAfterAttempt(DEFAULTS, 1, 1); // 1000
 * waitAfterAttempt(DEFAULTS, 7, 0.01); // 600 (the 60 s wait at --time-scale 0.01)
 */
export function waitAfterAttempt(settings: LadderSettings, n: number, timeScale: number): number {
  const waits = settings.delivery_waits_seconds;
  const seconds = waits[Math.min(n - 1, waits.length - 1)] ?? 60;
  return seconds * 1000 * timeScale;
}

/** The timeout of one attempt (ms, scaled): the fault's own, else the setting; never under the floor. */
export function attemptTimeoutMs(
  settings: LadderSettings,
  faultTimeoutMs: number | undefined,
  timeScale: number,
): number {
  const base = faultTimeoutMs ?? settings.delivery_timeout_ms;
  return Math.max(MIN_SCALED_TIMEOUT_MS, Math.round(base * timeScale));
}

/**
 * What follows attempt `n` that answered `status` (null: nothing answered): delivered, escalated,
 * or the time of the next attempt.
 *
 * @example
 * nextStep(settings, 'service', 3, 500, endedAt, 1); // { state: 'delivering', nextAtMs: endedAt + 4000 }
 */
export function nextStep(
  settings: LadderSettings,
  ladder: Ladder,
  n: number,
  status: number | null,
  endedAtMs: number,
  timeScale: number,
): { state: 'delivered' | 'escalated'; nextAtMs: null } | { state: 'delivering'; nextAtMs: number } {
  if (accepted(status)) return { state: 'delivered', nextAtMs: null };
  const most = ladder === 'once' ? 1 : settings.delivery_max_attempts;
  if (n >= most) return { state: 'escalated', nextAtMs: null };
  return { state: 'delivering', nextAtMs: endedAtMs + waitAfterAttempt(settings, n, timeScale) };
}

/** `--time-scale F`: 0 < F ≤ 1 (DESIGN.md); anything else is refused by the caller naming the flag. */
export function validTimeScale(value: number): boolean {
  return Number.isFinite(value) && value > 0 && value <= 1;
}
