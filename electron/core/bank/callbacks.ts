/**
 * The callbacks (spec 4.2; DESIGN.md "Bank endpoints"): GET /user_auth, /key and /external_id.
 * A token's path: routes.ts → {@link serveCallback} → verify.ts (the one engine, with the bank's
 * customers and signed pairs) → replies.ts (or forward.ts, or a behaviour) → sent → recording.ts.
 *
 * Threat model: the token and every header are attacker-controlled; the verdict is the engine's,
 * nothing here re-decides a rule. A callback waits for a JWKS fetch until KID_WAIT_MS after it
 * arrived, so it is answered by 900 ms (intake.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CALLBACK_BUDGET_MS, errorReply, jsonReply, type Reply, sendReply } from '../http';
import { forwardRequest, passThrough, type ForwardOutcome } from './forward';
import { KID_WAIT_MS } from './intake';
import { recordCallback } from './recording';
import { relayCallback } from './relayed';
import { fixedStatusReply, successBody, successReply, unauthorizedReply } from './replies';
import type { BankState, CallbackPath } from './state';
import { verifySessionToken, type Verdict } from './verify';

/** What to configure when no service JWKS URL is known. */
export const NO_URL_HINT =
  'start the sandbox, give --service-jwks-url, or set the active environment (its JWKS is {base_url}/api/v1/.well-known/jwks.json)';

/** Where a request came from and when, taken as it arrived (routes.ts). */
export interface Arrival {
  /** performance.now() at arrival, for the duration. */
  started: number;
  /** Arrival on the bank's clock (ms since the epoch). */
  at: number;
  path: string;
  method: string;
  remote: string | null;
  /** The replay nonce (REPLAY_HEADER), when a replay sent this request. */
  replay: string | undefined;
}

/**
 * Verifies an X-Session-ID with the bank's inputs. `lean` on a callback's hot path; a recheck
 * shows every check's words. `arrivedAt` (on the bank's clock): a callback waits for a JWKS fetch
 * until KID_WAIT_MS after it arrived; a recheck is not a callback and waits the whole 1 s.
 */
export function verifyCallbackToken(
  state: BankState,
  header: string | string[] | undefined,
  lean = false,
  arrivedAt?: number,
): Promise<Verdict> {
  const { now, customers, options } = state;
  return verifySessionToken(header, {
    lean,
    jwks: state.jwks,
    customer: (obj) => customers.get(obj),
    subsFor: (obj) => options.pairs.subsFor(obj),
    nowSeconds: () => Math.floor(now() / 1000),
    noUrlHint: NO_URL_HINT,
    deadlineMs: arrivedAt === undefined ? now() + CALLBACK_BUDGET_MS : arrivedAt + KID_WAIT_MS,
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The answer to a callback whose method is right: the token's verdict, then a team hub's route
 * (relayed.ts), forward, behaviour or the customer.
 */
export async function answerCallback(
  state: BankState,
  req: IncomingMessage,
  route: CallbackPath,
  arrival: Pick<Arrival, 'at' | 'started'>,
): Promise<{ reply: Reply; verdict: Verdict; forward: ForwardOutcome | null }> {
  const token = req.headers['x-session-id'];
  const verdict = await verifyCallbackToken(state, token, true, arrival.at);
  const routed = await relayCallback(state, req, route, verdict, arrival);
  if (routed) return { reply: passThrough(routed), verdict, forward: routed };
  const { behaviours, forward } = state.settings.get();
  if (forward.url) {
    const outcome = await forwardRequest({
      base: forward.url,
      path: route,
      method: 'GET',
      headers: typeof token === 'string' ? { 'X-Session-ID': token } : {},
    });
    return { reply: passThrough(outcome), verdict, forward: outcome };
  }
  const b = behaviours[route.slice(1)];
  if (b?.delay_ms) await sleep(b.delay_ms);
  if (b?.status !== undefined) {
    const reply =
      b.status >= 200 && b.status < 300 && verdict.customer
        ? jsonReply(b.status, successBody(route, verdict.customer, b), { maskKey: true })
        : fixedStatusReply(b.status, route);
    return { reply, verdict, forward: null };
  }
  if (!verdict.ok || !verdict.customer) return { reply: unauthorizedReply(verdict), verdict, forward: null };
  return { reply: successReply(state, route, verdict.customer, b), verdict, forward: null };
}

/** Sends a callback's (or a stray request's) answer and records it once the turn's answers are out. */
export function answered(
  state: BankState,
  req: IncomingMessage,
  res: ServerResponse,
  arrival: Arrival,
  reply: Reply,
  verdict: Verdict | null = null,
  forward: ForwardOutcome | null = null,
): void {
  sendReply(res, reply);
  const duration = Math.round((performance.now() - arrival.started) * 100) / 100;
  recordCallback(state, {
    at: arrival.at,
    path: arrival.path,
    method: arrival.method,
    remote: arrival.remote,
    req,
    reply,
    verdict,
    forward,
    duration,
    replay: arrival.replay,
  });
}

/** Serves a callback route: 405 for a method other than GET (spec 4.2), else its answer. */
export async function serveCallback(
  state: BankState,
  req: IncomingMessage,
  res: ServerResponse,
  arrival: Arrival,
): Promise<void> {
  req.resume();
  const { reply, verdict, forward } = await answerCallback(state, req, arrival.path as CallbackPath, arrival);
  answered(state, req, res, arrival, reply, verdict, forward);
}

/** A callback path asked with another method than GET. */
export function callbackMethodRefused(path: string): Reply {
  return errorReply(405, 'method_not_allowed', `${path} takes GET (spec 4.2)`, { Allow: 'GET' });
}
