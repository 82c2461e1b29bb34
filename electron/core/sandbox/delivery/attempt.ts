/**
 * One POST of a notification to the bank (spec 4.3): sent through the one outgoing exchange
 * (http/exchange.ts, never pooled, bounded in time and size), judged by the one answer judge
 * (answer/notification.ts), and told as a {@link DeliveryAttempt}. `dropOnStatus` plays a lost
 * acknowledgement: the connection is closed as the status line arrives, so nothing counts as
 * answered even though the bank did answer.
 *
 * Threat model: the bank is untrusted; its answer is read with a 64 KiB cap and the timeout,
 * and only its status and length are kept.
 */
import type { DeliveryAttempt } from '../../../contract/schemas/delivery';
import { judgeNotificationAnswer, type Answer } from '../../answer';
import { exchange } from '../../http';
import { userAgent } from '../user-agent';

/** What one attempt sends. */
export interface AttemptRequest {
  url: string;
  body: string;
  timeoutMs: number;
  dropOnStatus?: boolean;
}

/** What came of it, with the time it started (ms since the epoch). */
export interface AttemptOutcome {
  startedAtMs: number;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The one answer judge's first failed check, null when it passed. */
  failedCheck: string | null;
  /** The bank's answer, as received (cut at 64 KiB), for a trace. */
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends the notification once. Never throws: a bank that cannot be reached, does not answer in
 * time, or whose answer was dropped is an outcome with `status: null` and `error`.
 *
 * @example
 * const o = await sendAttempt({ url, body: JSON.stringify({ transaction_id }), timeoutMs: 5000 }, Date.now);
 */
export async function sendAttempt(request: AttemptRequest, now: () => number): Promise<AttemptOutcome> {
  const startedAtMs = now();
  const result = await exchange({
    method: 'POST',
    url: request.url,
    headers: { 'Content-Type': 'application/json', 'User-Agent': userAgent() },
    body: request.body,
    giveUpMs: request.timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
    dropOnStatus: request.dropOnStatus,
  });
  const answer: Answer = result.ok
    ? {
        arrived: true,
        status: result.status,
        durationMs: result.durationMs,
        contentType: result.headers['content-type'] ?? null,
        body: result.body,
        truncated: result.truncated,
      }
    : { arrived: false, durationMs: result.durationMs, why: result.message };
  const failed = judgeNotificationAnswer(answer).find((c) => c.status === 'failed');
  if (!result.ok) {
    const error =
      result.phase === 'timeout'
        ? `no answer within ${request.timeoutMs} ms`
        : result.connected
          ? `the bank did not answer: ${result.message}`
          : `could not reach the bank: ${result.message}`;
    return {
      startedAtMs,
      status: null,
      error,
      durationMs: result.durationMs,
      failedCheck: failed?.id ?? 'reachable',
      responseBody: null,
      responseHeaders: null,
    };
  }
  return {
    startedAtMs,
    status: result.status,
    error: null,
    durationMs: result.durationMs,
    failedCheck: failed?.id ?? null,
    responseBody: result.body.length > 0 ? result.body.toString('utf8') : null,
    responseHeaders: result.headers,
  };
}

/** The outcome as the delivery records it. */
export function attemptRecord(
  n: number,
  outcome: AttemptOutcome,
  extra: { plannedAtMs?: number; copy?: boolean } = {},
): DeliveryAttempt {
  return {
    n,
    at: new Date(outcome.startedAtMs).toISOString(),
    status: outcome.status,
    error: outcome.error,
    duration_ms: outcome.durationMs,
    failed_check: outcome.failedCheck,
    ...(extra.plannedAtMs !== undefined ? { planned_at: new Date(extra.plannedAtMs).toISOString() } : {}),
    ...(extra.copy ? { copy: true } : {}),
  };
}
