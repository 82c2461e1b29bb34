/**
 * The API of a team hub (issue 30 item 1): requests.ts hands every /api request here when serve
 * runs with --team. The caller is the member whose token the request carries (core/team
 * TeamGuard; the per-launch token counts only from a loopback peer); a call the member's role
 * may not make is refused 403 and changes nothing; every call that changes something is audited
 * with the member's name. The threat model is core/team/guard.ts's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRANSPORT } from '../contract';
import type { Caller, TeamGuard } from '../core/team';
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
