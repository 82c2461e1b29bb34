/**
 * Recheck and replay of a stored callback (DESIGN.md "Bank endpoints", the Callbacks page):
 * a recheck runs the same token's checks again with the current JWKS and stores nothing; a
 * replay sends the callback again to the bank's own listener with a fresh token for the same
 * obj/sub (signed by the sandbox), and answers the event that request was recorded as.
 *
 * Threat model: the stored event is the console's own; the replayed request goes only to the
 * bank's own listener, a self-signed --tls-cert trusted as exactly that certificate.
 */
import { randomBytes } from 'node:crypto';
import { ConsoleError } from '../../contract/errors';
import type { EventDetail, EventSummary } from '../../contract/schemas/events';
import { badArgument } from '../common';
import { exchange } from '../http';
import { rebuildCallbackDetail } from './callback-detail';
import { verifyCallbackToken } from './callbacks';
import { REPLAY_HEADER } from './intake';
import { CALLBACK_PATHS } from './routes';
import type { BankState } from './state';

/** How long a replay waits for its request's answer and event. */
const REPLAY_GIVE_UP_MS = 30_000;

/** The stored event `id`, if it is a callback; BAD_ARGUMENT otherwise. */
export async function storedCallback(state: BankState, id: string): Promise<EventDetail> {
  const event = await state.options.store.get(id);
  if (event.kind !== 'callback' || !event.path || !CALLBACK_PATHS.includes(event.path)) {
    throw badArgument(`event ${id} is not a callback to /user_auth, /key or /external_id`, 'id');
  }
  return event;
}

/** A stored callback's checks run again with the current JWKS; not stored (the answer was given). */
export async function recheck(state: BankState, id: string): Promise<EventDetail> {
  const event = await storedCallback(state, id);
  const verdict = await verifyCallbackToken(state, event.request?.headers['x-session-id']);
  return {
    ...event,
    failed_check: verdict.failed,
    obj: verdict.obj,
    sub: verdict.sub,
    warning: verdict.warning,
    checks: verdict.checks,
    token: verdict.decoded ? { header: verdict.decoded.header, payload: verdict.decoded.payload } : null,
    environment: verdict.environment,
    jwks: verdict.jwks.url
      ? {
          url: verdict.jwks.url,
          kids: verdict.jwks.kids,
          fetched_at: verdict.jwks.fetched_at,
          stale: verdict.jwks.stale,
          error: verdict.jwks.error,
        }
      : null,
    data: {
      recheck: {
        at: new Date(state.now()).toISOString(),
        was: event.failed_check,
        now: verdict.failed,
        note: `rechecked with the current JWKS; the stored event (status ${event.status ?? '?'}) is unchanged`,
      },
    },
  };
}

/** Waits for the event of the request marked `nonce` (recording.ts settles it), up to 30 s. */
function eventOf(state: BankState, nonce: string): Promise<EventSummary> {
  return new Promise<EventSummary>((resolve, reject) => {
    const timer = setTimeout(() => {
      state.replayWaiters.delete(nonce);
      reject(new ConsoleError('INTERNAL', 'the replayed request was not recorded within 30 s'));
    }, REPLAY_GIVE_UP_MS);
    state.replayWaiters.set(nonce, (r) => {
      clearTimeout(timer);
      state.replayWaiters.delete(nonce);
      if (r instanceof Error) reject(r);
      else resolve(r);
    });
  });
}

/** Replays a stored callback with a fresh token (same obj/sub, new iat/exp) and answers its new event. */
export async function replay(state: BankState, id: string): Promise<EventDetail> {
  const event = await storedCallback(state, id);
  const sign = state.options.signServiceToken;
  if (!sign) {
    throw new ConsoleError(
      'CONFLICT',
      'replay needs the sandbox to sign a fresh X-Session-ID, and it is not available',
    );
  }
  const [server] = state.servers;
  if (!server) throw new ConsoleError('CONFLICT', 'the bank endpoints are not listening: start them first');
  if (!event.obj || !event.sub) {
    throw badArgument(`event ${id} has no obj/sub to replay (its token did not carry them)`, 'id');
  }
  const token = await sign({ obj: event.obj, sub: event.sub });
  const nonce = randomBytes(12).toString('hex');
  const appended = eventOf(state, nonce);
  const result = await exchange({
    method: 'GET',
    url: `${server.url}${event.path as string}`,
    headers: { 'X-Session-ID': token, [REPLAY_HEADER]: nonce },
    giveUpMs: REPLAY_GIVE_UP_MS,
    // Its own listener: a self-signed --tls-cert is trusted here, exactly that certificate.
    ...(server.cert ? { pinnedCert: server.cert } : {}),
  });
  if (!result.ok) {
    state.replayWaiters.get(nonce)?.(new Error(`the replay request failed: ${result.message}`));
  }
  const summary = await appended;
  return rebuildCallbackDetail(await state.options.store.get(summary.id));
}
