/**
 * A team hub's routes, from the bank's side (issue 30 item 3; DESIGN.md "Team hub"): before the
 * bank answers a callback or a notification itself, it offers the request to the hub's routes
 * (core/team RelayHub). A laptop's answer is passed on as forward mode passes a backend's
 * (forward.ts), and judged the same way by the one answer judge when the event is recorded
 * (callback-verdict.ts); when no laptop answers in time, the bank answers as it does unrouted.
 *
 * Threat model: only a callback whose token's signature was proven is relayed, so nobody without
 * the service's key can aim requests at a member's laptop by forging obj or sub (a token that
 * fails before `signature` is answered by the hub, 401 as always). The laptop's answer is
 * untrusted: bounded by the relay (team/relay-frames.ts), judged, never evaluated.
 */
import type { IncomingMessage } from 'node:http';
import { UNPROVEN_CHECKS } from '../store';
import type { ForwardOutcome } from './forward';
import { RELAY_WAIT_MS } from './intake';
import type { BankState } from './state';
import type { RelayOutcome, RelayRequest } from './types';
import type { Verdict } from './verify';

/** A relayed answer as forward mode's outcome, so it is passed on and judged alike. */
function forwarded(outcome: RelayOutcome): ForwardOutcome | null {
  return outcome.answered ? { url: outcome.url, result: outcome.result, verdicts: [] } : null;
}

/** When the laptop's answer must be back: RELAY_WAIT_MS after the request arrived (performance.now()). */
function deadlineOf(arrival: { started: number }): number {
  return arrival.started + RELAY_WAIT_MS;
}

/**
 * The laptop's answer to a callback a route claims, or null (no relay, no route, an unproven
 * token, or no answer in time: the bank then answers itself).
 */
export async function relayCallback(
  state: BankState,
  req: IncomingMessage,
  path: string,
  verdict: Verdict,
  arrival: { started: number },
): Promise<ForwardOutcome | null> {
  const relay = state.options.relay;
  if (!relay) return null;
  if (!verdict.ok && (verdict.failed === null || UNPROVEN_CHECKS.includes(verdict.failed))) return null;
  const token = req.headers['x-session-id'];
  const request: RelayRequest = {
    kind: 'callback',
    method: 'GET',
    path,
    headers: typeof token === 'string' ? { 'X-Session-ID': token } : {},
    body: null,
    claims: { obj: verdict.obj, sub: verdict.sub },
    deadline: deadlineOf(arrival),
  };
  const claimed = relay.relay(request);
  return claimed ? forwarded(await claimed) : null;
}

/** The laptop's answer to a notification a route claims (team/route-table.ts: catch-all routes), or null. */
export async function relayNotification(
  state: BankState,
  req: IncomingMessage,
  text: string,
  arrival: { started: number },
): Promise<ForwardOutcome | null> {
  const relay = state.options.relay;
  if (!relay) return null;
  const type = req.headers['content-type'];
  const claimed = relay.relay({
    kind: 'notification',
    method: 'POST',
    path: req.url?.split('?')[0] ?? '',
    headers: type ? { 'Content-Type': type } : {},
    body: text,
    claims: null,
    deadline: deadlineOf(arrival),
  });
  return claimed ? forwarded(await claimed) : null;
}
