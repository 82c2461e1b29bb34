/**
 * The headless server's requests, in the order server.ts's threat model checks them: Host and
 * Origin first (a rebound or cross-origin request learns nothing, not even 401), then the
 * public renderer files, or under /api the header token and then a call, the event stream or
 * a one-time download. Functions over one plain state object, so each check can be followed
 * and tested on its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRANSPORT } from '../contract';
import type { ConsoleCore } from '../core/console-core';
import { downloadAnswer, downloadTicket } from '../core/downloads';
import { isApiPath, isSameOrigin, presentedToken, tokenMatches } from './auth';
import type { EventStream } from './event-stream';
import { HttpError, MAX_BODY_BYTES, readBody, sendError, sendJson, setSecurityHeaders } from './http-util';
import { isCallPath, methodForPath } from './routes';
import { serveStatic } from './static-files';
import { hubCall, hubCaller } from './team-requests';
import type { Caller, TeamGuard } from '../core/team';

/** What the server needs of a core: the one entry point for calls, and its events. */
export type HeadlessCore = Pick<ConsoleCore, 'dispatch' | 'events'> & Partial<Pick<ConsoleCore, 'downloads'>>;

/** What the request handlers share: the core, this launch's token, the allowed Hosts, the stream. */
export interface RequestState {
  readonly core: HeadlessCore;
  readonly token: string;
  readonly stream: EventStream;
  readonly rendererDir: string;
  /** The Host values this server answers to; set once it listens. */
  hosts: Set<string>;
  /** Set once close() was called: answers end their connection, no new event stream. */
  closing: boolean;
  /** A team hub's door (serve --team): member tokens, roles, the audit trail. */
  readonly team?: TeamGuard;
}

/** 405 naming what is allowed. */
export function notAllowed(
  res: ServerResponse,
  method: string | undefined,
  path: string,
  allow: string,
): void {
  sendError(res, 405, 'BAD_ARGUMENT', `${method ?? '?'} is not allowed on ${path} (use ${allow})`, {
    Allow: allow,
  });
}

/**
 * Path and query of an origin-form request target; anything else (absolute-form, `*`, `//x`)
 * is refused.
 *
 * @example
 * parseTarget('/api/call/keys.list?x=1')?.path; // '/api/call/keys.list'
 * parseTarget('http://evil/'); // undefined
 */
export function parseTarget(raw: string | undefined): { path: string; query: URLSearchParams } | undefined {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//')) return undefined;
  const q = raw.indexOf('?');
  return q < 0
    ? { path: raw, query: new URLSearchParams() }
    : { path: raw.slice(0, q), query: new URLSearchParams(raw.slice(q + 1)) };
}

/** One request, from the security headers to its answer. */
export async function handleRequest(
  state: RequestState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  setSecurityHeaders(res);
  if (state.closing) res.setHeader('Connection', 'close');

  const target = parseTarget(req.url);
  if (!target) return sendError(res, 400, 'BAD_ARGUMENT', 'the request target must be a path');

  // Host and Origin first: a rebound or cross-origin request learns nothing, not even 401.
  const host = (req.headers.host ?? '').toLowerCase();
  // A hub is reached by its staging host's name, which no allowlist here can know; rebinding
  // gains nothing there, since no ambient credential exists (a token travels only in a header
  // a same-origin script adds), and the Origin rule below still holds.
  if (!state.team && !state.hosts.has(host)) {
    return sendError(res, 403, 'FORBIDDEN', `Host "${host}" is not this server's address`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isSameOrigin(origin, host)) {
    return sendError(res, 403, 'FORBIDDEN', `Origin "${origin}" may not use this server`);
  }

  const { path } = target;
  if (isApiPath(path)) return handleApi(state, req, res, path);

  // The renderer's files: public code, served without a credential (see the threat model).
  if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(res, req.method, path, 'GET, HEAD');
  const served = await serveStatic(req, res, state.rendererDir, path);
  if (served === 'not-found') sendError(res, 404, 'NOT_FOUND', `no file at ${path}`);
}

/** Everything under /api: the header token first, then the call, the stream or a download. */
async function handleApi(state: RequestState, req: IncomingMessage, res: ServerResponse, path: string) {
  let caller: Caller | null = null;
  if (state.team) {
    caller = await hubCaller(state.team, state.token, req, res);
    if (caller === null) return;
  } else if (!tokenMatches(state.token, presentedToken(req))) {
    const hint = `missing or wrong ${TRANSPORT.tokenHeader} header: open the URL printed when this server started`;
    return sendError(res, 401, 'UNAUTHORIZED', hint, { 'WWW-Authenticate': 'DETS-Token' });
  }
  if (isCallPath(path)) return handleCall(state, req, res, path, caller);
  if (path === TRANSPORT.eventsPath) {
    if (req.method !== 'GET') return notAllowed(res, req.method, path, 'GET');
    if (state.closing) return sendError(res, 503, 'INTERNAL', 'the server is stopping');
    return state.stream.attach(req, res);
  }
  const ticket = downloadTicket(path);
  if (ticket !== null) {
    if (req.method !== 'GET') return notAllowed(res, req.method, path, 'GET');
    return serveDownload(state, res, ticket);
  }
  return sendError(res, 404, 'NOT_FOUND', `no API at ${path}`);
}

/** A one-time download (electron/core/downloads.ts): served once, as an attachment, never cached. */
function serveDownload(state: RequestState, res: ServerResponse, ticket: string): void {
  const answer = downloadAnswer(state.core.downloads, ticket);
  if (answer.status === 404) return sendError(res, 404, 'NOT_FOUND', answer.message);
  res.writeHead(200, answer.headers);
  res.end(answer.body);
}

/** POST /api/call/<method>: the body is the argument; the contract validates it (headless adds no rules). */
async function handleCall(
  state: RequestState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  caller: Caller | null,
) {
  if (req.method !== 'POST') return notAllowed(res, req.method, path, 'POST');
  const method = methodForPath(path);
  if (!method) {
    return sendError(
      res,
      404,
      'UNKNOWN_METHOD',
      `unknown method "${path.slice(TRANSPORT.callPathPrefix.length)}"`,
    );
  }
  let body: Buffer;
  try {
    body = await readBody(req, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof HttpError && err.status === 413) {
      return sendError(res, 413, 'BAD_ARGUMENT', `${method}: ${err.message}`, { Connection: 'close' });
    }
    throw err;
  }
  let input: unknown;
  if (body.length > 0) {
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch {
      return sendError(res, 400, 'BAD_ARGUMENT', `${method}: the body is not valid JSON`);
    }
  }
  if (state.team && caller) {
    return hubCall(state.team, caller, method, input, () => state.core.dispatch(method, input), res);
  }
  sendJson(res, 200, await state.core.dispatch(method, input));
}
