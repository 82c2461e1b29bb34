/**
 * The bank listener's route table (DESIGN.md "Bank endpoints"): GET /user_auth, /key and
 * /external_id (spec 4.2), and POST {prefix}/pay-in, /pay-out and /transfer under the
 * configurable prefix (spec 4.3), matched by the core's RouteTable (http/router.ts). The bank
 * answers a 404 or 405 in its own words and records it: a request under the prefix as a
 * notification, anything else as a callback.
 *
 * Threat model: a web page's request (Origin header) is refused with 403 before anything is read
 * (http/origin.ts) and recorded compactly; nothing a client sends escapes as a throw (handle).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply, originRefusal, refusedRequest, RouteTable, sendReply } from '../http';
import { answered, type Arrival, callbackMethodRefused, serveCallback } from './callbacks';
import { originRefusedEvent, REPLAY_HEADER } from './intake';
import {
  NOTIFY_EVENTS,
  notificationMethodRefused,
  serveNotification,
  storeAndAnswer,
  unknownNotification,
} from './notifications';
import { recordLater } from './recording';
import type { BankRoute, BankState } from './state';

/** The callbacks' paths (spec 4.2). */
export const CALLBACK_PATHS: readonly string[] = ['/user_auth', '/key', '/external_id'];

/**
 * The bank's routes for a notification prefix.
 *
 * @example
 * bankRoutes('/api/svc/notify').map((r) => `${r.method} ${r.path}`)
 * // ['GET /user_auth', 'GET /key', 'GET /external_id', 'POST /api/svc/notify/pay-in', …]
 */
export function bankRoutes(prefix: string): BankRoute[] {
  return [
    ...CALLBACK_PATHS.map((path) => ({
      method: 'GET' as const,
      path,
      serve: 'callback' as const,
      name: path,
    })),
    ...NOTIFY_EVENTS.map((name) => ({
      method: 'POST' as const,
      path: `${prefix}/${name}`,
      serve: 'notification' as const,
      name,
    })),
  ];
}

/** The table for the current prefix, made again only when the prefix changes (settings). */
function tableFor(state: BankState, prefix: string): RouteTable<BankRoute> {
  if (state.routes?.prefix !== prefix) state.routes = { prefix, table: new RouteTable(bankRoutes(prefix)) };
  return state.routes.table;
}

/** The node:http handler of the bank's listeners: a failure becomes a 500, never a crash. */
export function handleBankRequest(state: BankState, req: IncomingMessage, res: ServerResponse): void {
  route(state, req, res).catch((err: unknown) => {
    sendReply(res, errorReply(500, 'internal', err instanceof Error ? err.message : String(err)));
  });
}

async function route(state: BankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const replayHeader = req.headers[REPLAY_HEADER];
  const arrival: Arrival = {
    started: performance.now(),
    at: state.now(),
    path: (req.url ?? '/').split('?', 1)[0] ?? '/',
    method: req.method ?? 'GET',
    remote: req.socket.remoteAddress ?? null,
    replay: typeof replayHeader === 'string' ? replayHeader : undefined,
  };
  const prefix = state.settings.get().notify_path_prefix;
  const underPrefix = arrival.path.startsWith(`${prefix}/`);

  // A web page's request (http/origin.ts): 403 before anything is read, kept compact.
  const refused = originRefusal(req);
  if (refused) {
    req.resume();
    sendReply(res, errorReply(refused.status, refused.error, refused.detail));
    const kind = underPrefix ? 'notification' : 'callback';
    recordLater(state, originRefusedEvent(refusedRequest(req, refused, arrival.at), kind), arrival.replay);
    return;
  }

  const match = tableFor(state, prefix).match(arrival.method, arrival.path);
  if (match.kind === 'found') {
    if (match.route.serve === 'callback') return serveCallback(state, req, res, arrival);
    return serveNotification(state, req, res, arrival, match.route.name);
  }
  req.resume();
  if (match.kind === 'method_not_allowed') {
    if (match.routes[0]?.serve === 'callback') {
      return answered(state, req, res, arrival, callbackMethodRefused(arrival.path));
    }
    return storeAndAnswer(state, req, res, arrival, notificationMethodRefused(arrival.path));
  }
  if (underPrefix) {
    const name = arrival.path.slice(prefix.length + 1);
    return storeAndAnswer(state, req, res, arrival, unknownNotification(prefix, name));
  }
  const reply = errorReply(
    404,
    'not_found',
    `no route ${arrival.method} ${arrival.path}; the bank endpoints are GET /user_auth, /key, /external_id and POST ${prefix}/pay-in, /pay-out, /transfer`,
  );
  answered(state, req, res, arrival, reply);
}
