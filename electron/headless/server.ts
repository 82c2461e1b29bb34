/**
 * The headless host: the console's core in a plain Node process, serving the built renderer and
 * the ConsoleApi over loopback HTTP (the wire protocol is in electron/contract/transport.ts),
 * plus the live event stream. This is browser mode, and what end-to-end tests drive.
 *
 * Threat model. The API can do anything the console can (sign with the vault's keys, send
 * requests as the bank), so everyone but the person who launched it is an adversary:
 *
 * - Other local users and processes can connect to any port on 127.0.0.1. They do not know the
 *   random 32-byte per-launch token, which only the launching user sees (printed on its
 *   terminal, or in the ready line its own program reads). Every request must carry it (header,
 *   cookie or query); it is compared in constant time; a request without it gets 401 and
 *   reaches nothing. We bind to 127.0.0.1 by default; a non-loopback --host leaves the token as
 *   the only protection, and the CLI says so.
 * - Web pages in the user's browser can send requests to 127.0.0.1. Cross-site requests do not
 *   carry the SameSite=Strict cookie, and cannot add the X-DETS-Token header without a CORS
 *   preflight this server never grants. Any request with an Origin header that is not this
 *   server's own origin is refused with 403 (CSRF; pages on other local ports are same-site but
 *   not same-origin), mutations are POST only, and Cross-Origin-Resource-Policy stops other
 *   origins from embedding what it serves.
 * - DNS rebinding: a hostile name re-pointed at 127.0.0.1 makes the browser treat this server as
 *   that name's origin. The Host header then names the hostile name, so any Host other than the
 *   bound address or localhost at our port is refused with 403, before the token is looked at.
 * - The page: a strict Content-Security-Policy (own scripts only, no framing), no referrer (the
 *   page URL holds the token), no caching of the page or the API.
 * - Slow clients (a local process trickling headers to hold connections open): the listener
 *   bounds of core/http/listener.ts, the same as the bank's and the sandbox's, answer 408 and
 *   close a connection whose headers or request take too long, so each holds only itself.
 *
 * - Many tabs (issue 13 item 5): opening the access link sets the token as an HttpOnly,
 *   SameSite=Strict cookie named for this port, so later tabs and windows on this origin need no
 *   token in their URL. The cookie is checked like the token (constant time); Host and Origin are
 *   checked first all the same, and the token still never leaves loopback.
 *
 * Residual risk, accepted: browsers do not isolate cookies by port, so a page served by another
 * process on 127.0.0.1 that the user visits receives the cookie. The token lasts one launch. (The
 * cookie's name carries the port, so two consoles on one host do not overwrite each other's.)
 */
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { TRANSPORT } from '../contract';
import type { ConsoleCore } from '../core/console-core';
import { downloadAnswer, downloadTicket } from '../core/downloads';
import { createBoundedServer, type ListenerBounds } from '../core/http/listener';
import { allowedHosts, createToken, isSameOrigin, presentedTokens, tokenCookie, tokenMatches } from './auth';
import { EventStream } from './event-stream';
import { HttpError, MAX_BODY_BYTES, readBody, sendError, sendJson, setSecurityHeaders } from './http-util';
import { isCallPath, methodForPath } from './routes';
import { defaultRendererDir, serveStatic } from './static-files';

/** What the server needs of a core: the one entry point for calls, and its events. */
export type HeadlessCore = Pick<ConsoleCore, 'dispatch' | 'events'> & Partial<Pick<ConsoleCore, 'downloads'>>;

export interface HeadlessServerOptions {
  core: HeadlessCore;
  /** Address to bind; 127.0.0.1 unless the user chose otherwise. */
  host?: string;
  /** Port to bind; 0 (the default) picks a free one. */
  port?: number;
  /** The built renderer; by default dist/renderer found from this module's location. */
  rendererDir?: string;
  /** Interval of the event stream's keep-alive comments. */
  heartbeatMs?: number;
  /** How long close() lets in-flight requests finish before cutting their connections. */
  closeTimeoutMs?: number;
  /** Header, request and keep-alive time bounds: the listeners' production bounds unless a test shortens them. */
  bounds?: Partial<ListenerBounds>;
}

export interface HeadlessServer {
  /** `http://<address>:<port>/`, without the token. */
  readonly url: string;
  /** The URL to open: `url` plus `?token=<token>`. */
  readonly tokenUrl: string;
  readonly token: string;
  readonly host: string;
  readonly port: number;
  readonly rendererDir: string;
  /** Stops accepting, lets in-flight requests finish, ends event streams, then resolves. */
  close(): Promise<void>;
}

/**
 * Starts the browser-mode server. Rejects with the listen error (its `code`, e.g. EADDRINUSE,
 * kept) when the address cannot be bound.
 *
 * @example
 * const core = await createConsoleCore({ dataDir, host: 'browser' });
 * const server = await startHeadlessServer({ core, port: 0 });
 * console.log(server.tokenUrl); // http://127.0.0.1:41234/?token=…
 * await server.close();
 */
export async function startHeadlessServer(options: HeadlessServerOptions): Promise<HeadlessServer> {
  const { core } = options;
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  const token = createToken();
  const stream = new EventStream(core.events, options.heartbeatMs ?? 15_000);
  let hosts = new Set<string>();
  let port = 0;
  let closing: Promise<void> | undefined;

  const server = createBoundedServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendError(res, 500, 'INTERNAL', err instanceof Error ? err.message : String(err));
      } else {
        res.destroy();
      }
    });
  }, options.bounds);
  // In-flight responses, so that stopping can tell them to close their keep-alive connection.
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setSecurityHeaders(res);
    if (closing) res.setHeader('Connection', 'close');

    const target = parseTarget(req.url);
    if (!target) return sendError(res, 400, 'BAD_ARGUMENT', 'the request target must be a path');

    // Host and Origin first: a rebound or cross-origin request learns nothing, not even 401.
    const host = (req.headers.host ?? '').toLowerCase();
    if (!hosts.has(host)) {
      return sendError(res, 403, 'FORBIDDEN', `Host "${host}" is not this server's address`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isSameOrigin(origin, host)) {
      return sendError(res, 403, 'FORBIDDEN', `Origin "${origin}" may not use this server`);
    }

    const presented = presentedTokens(req, target.query, port);
    if (!presented.some((t) => tokenMatches(token, t))) {
      const hint = 'missing or wrong access token: open the URL printed when this server started';
      // A person who opened the bare address in a browser gets a page that says what to do.
      if (req.method === 'GET' && !target.path.startsWith('/api') && acceptsHtml(req)) {
        return sendAccessHelp(res, hint);
      }
      return sendError(res, 401, 'UNAUTHORIZED', hint, { 'WWW-Authenticate': 'DETS-Token' });
    }

    const { path } = target;
    if (isCallPath(path)) return handleCall(req, res, path);
    if (path === TRANSPORT.eventsPath) {
      if (req.method !== 'GET') return notAllowed(res, req.method, path, 'GET');
      if (closing) return sendError(res, 503, 'INTERNAL', 'the server is stopping');
      return stream.attach(req, res);
    }
    const ticket = downloadTicket(path);
    if (ticket !== null) {
      if (req.method !== 'GET') return notAllowed(res, req.method, path, 'GET');
      return serveDownload(res, ticket);
    }
    if (path === '/api' || path.startsWith('/api/'))
      return sendError(res, 404, 'NOT_FOUND', `no API at ${path}`);

    if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(res, req.method, path, 'GET, HEAD');
    // The page opened with ?token=… hands the token to a cookie so its own assets load.
    const isPage = path === '/' || path === '/index.html';
    const queryOk = target.query.getAll(TRANSPORT.tokenQuery).some((t) => tokenMatches(token, t));
    const extra: Record<string, string> = isPage && queryOk ? { 'Set-Cookie': tokenCookie(token, port) } : {};
    const served = await serveStatic(req, res, rendererDir, path, extra);
    if (served === 'not-found') sendError(res, 404, 'NOT_FOUND', `no file at ${path}`);
  }

  /** A one-time download (electron/core/downloads.ts): served once, as an attachment, never cached. */
  function serveDownload(res: ServerResponse, ticket: string): void {
    const answer = downloadAnswer(core.downloads, ticket);
    if (answer.status === 404) return sendError(res, 404, 'NOT_FOUND', answer.message);
    res.writeHead(200, answer.headers);
    res.end(answer.body);
  }

  async function handleCall(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
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
    // The contract validates the argument: headless adds no rules of its own.
    sendJson(res, 200, await core.dispatch(method, input));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  const address = server.address() as AddressInfo;
  hosts = allowedHosts(address.address, address.port, interfaceAddresses());
  port = address.port;
  const url = `http://${urlHost(address.address)}:${address.port}/`;

  return {
    url,
    tokenUrl: `${url}?${TRANSPORT.tokenQuery}=${token}`,
    token,
    host: address.address,
    port: address.port,
    rendererDir,
    close() {
      closing ??= stop(server, stream, inFlight, options.closeTimeoutMs ?? 10_000);
      return closing;
    },
  };
}

function acceptsHtml(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

/** The 401 for a browser tab that has neither the token nor this launch's cookie (plain HTML, no script). */
function sendAccessHelp(res: ServerResponse, hint: string): void {
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>DETS Console needs its access link</title></head>' +
    '<body><h1>DETS Console needs its access link</h1>' +
    `<p>${hint}.</p><p>Once that link has been opened in this browser, every other tab on this address works ` +
    'without it, until the server restarts.</p></body></html>';
  res.writeHead(401, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'WWW-Authenticate': 'DETS-Token',
  });
  res.end(body);
}

function notAllowed(res: ServerResponse, method: string | undefined, path: string, allow: string): void {
  sendError(res, 405, 'BAD_ARGUMENT', `${method ?? '?'} is not allowed on ${path} (use ${allow})`, {
    Allow: allow,
  });
}

/** Path and query of an origin-form request target; anything else (absolute-form, `*`) is refused. */
function parseTarget(raw: string | undefined): { path: string; query: URLSearchParams } | undefined {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//')) return undefined;
  const q = raw.indexOf('?');
  return q < 0
    ? { path: raw, query: new URLSearchParams() }
    : { path: raw.slice(0, q), query: new URLSearchParams(raw.slice(q + 1)) };
}

/** The address a browser should use: a wildcard bind is reached at loopback. */
function urlHost(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return net.isIPv6(address) ? `[${address}]` : address;
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((i) => i !== undefined)
    .map((i) => i.address);
}

/**
 * Graceful stop: no new connections; idle keep-alive sockets closed now and busy ones as soon
 * as their response is out; event streams ended; in-flight requests allowed to finish. After
 * `timeoutMs` whatever is left is cut.
 */
function stop(
  server: http.Server,
  stream: EventStream,
  inFlight: Set<ServerResponse>,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    // Answers still to come end their connection instead of keeping it alive.
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    stream.close();
    server.closeIdleConnections();
  });
}
