/**
 * The API of a team hub (issue 30 item 1): requests.ts hands every /api request here when serve
 * runs with --team. The caller is the member whose token the request carries (core/team
 * TeamGuard; the per-launch token counts only from a loopback peer); a call the member's role
 * may not make is refused 403 and changes nothing; every call that changes something is audited
 * with the member's name. The threat model is core/team/guard.ts's.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TRANSPORT } from '../contract';
import { RELAY_PATH, RELAY_PROTOCOL, type Caller, type TeamGuard } from '../core/team';
import { isLoopbackAddress, presentedToken, tokenMatches } from './auth';
import { sendError, sendJson } from './http-util';

/** The token a hub request carries: X-DETS-Token, or `Authorization: Bearer` (scripts, attach). */
export function hubToken(req: IncomingMessage): string | undefined {
  const header = presentedToken(req);
  if (header !== undefined) return header;
  const auth = req.headers.authorization;
  return typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
}

/** The caller of a hub request, or null after answering 401. */
export async function hubCaller(
  guard: TeamGuard,
  launchToken: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Caller | null> {
  const token = hubToken(req);
  const remote = req.socket.remoteAddress ?? null;
  if (remote !== null && isLoopbackAddress(remote) && tokenMatches(launchToken, token))
    return guard.localCaller(remote);
  const caller = await guard.authenticate(token, remote);
  if (caller) return caller;
  sendError(
    res,
    401,
    'UNAUTHORIZED',
    `missing, wrong or revoked member token (${TRANSPORT.tokenHeader} or Authorization: Bearer): ask an admin for one (dets-console team add)`,
    { 'WWW-Authenticate': 'Bearer realm="dets-console hub"' },
  );
  return null;
}

/**
 * A call on a hub: the role first (403, nothing runs), then the core; audited either way.
 * `team.session` is answered for the caller.
 */
export async function hubCall(
  guard: TeamGuard,
  caller: Caller,
  method: string,
  input: unknown,
  run: () => Promise<{ ok: boolean; error?: { code: string } }>,
  res: ServerResponse,
): Promise<void> {
  if (!guard.allows(caller, method)) {
    await guard.record(caller, method, input, 'FORBIDDEN');
    return sendError(
      res,
      403,
      'FORBIDDEN',
      `${caller.member} is a ${caller.role}: ${method} needs a higher role`,
    );
  }
  if (method === 'team.session') return sendJson(res, 200, { ok: true, value: guard.session(caller) });
  const answer = await run();
  await guard.record(caller, method, input, answer.ok ? null : (answer.error?.code ?? 'INTERNAL'));
  sendJson(res, 200, answer);
}

/** A refused upgrade: a plain HTTP answer on the raw socket, then closed. */
function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ ok: false, error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * A laptop's relay connection (issue 30 item 3; core/team relay-frames.ts): an HTTP upgrade to
 * RELAY_PROTOCOL on RELAY_PATH, with a member token of at least operator's role (routes are an
 * operator's: contract team-roles.ts). No browser can open it (an Origin is refused, and no
 * browser API sends this Upgrade). Refusals are answered in HTTP and audited like calls.
 */
export async function hubUpgrade(
  guard: TeamGuard,
  launchToken: string,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on('error', () => undefined);
  const relay = guard.relay;
  const path = (req.url ?? '').split('?', 1)[0];
  if (!relay || path !== RELAY_PATH || req.method !== 'GET')
    return refuseUpgrade(socket, 404, 'NOT_FOUND', `no upgrade at ${path ?? '?'}`);
  if (String(req.headers.upgrade ?? '').toLowerCase() !== RELAY_PROTOCOL)
    return refuseUpgrade(socket, 400, 'BAD_ARGUMENT', `Upgrade must be ${RELAY_PROTOCOL}`);
  if (req.headers.origin !== undefined)
    return refuseUpgrade(socket, 403, 'FORBIDDEN', 'a web page may not open a relay connection');
  const token = hubToken(req);
  const remote = req.socket.remoteAddress ?? null;
  const caller =
    remote !== null && isLoopbackAddress(remote) && tokenMatches(launchToken, token)
      ? guard.localCaller(remote)
      : await guard.authenticate(token, remote);
  if (!caller) return refuseUpgrade(socket, 401, 'UNAUTHORIZED', 'missing, wrong or revoked member token');
  if (!guard.allows(caller, 'team.addRoute')) {
    await guard.record(caller, 'team.addRoute', undefined, 'FORBIDDEN');
    return refuseUpgrade(
      socket,
      403,
      'FORBIDDEN',
      `${caller.member} is a ${caller.role}: routes need operator`,
    );
  }
  if (socket.destroyed) return;
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${RELAY_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`,
  );
  if (socket instanceof Socket) {
    // The listener's idle bounds are for requests; the relay has its own pings (relay-hub.ts).
    socket.setTimeout(0);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
  }
  relay.accept(socket, caller, head);
}
