/**
 * The headless host: the console's core in a plain Node process, serving the built renderer and
 * the ConsoleApi over loopback HTTP (the wire protocol is in electron/contract/transport.ts),
 * plus the live event stream. This is browser mode, and what end-to-end tests drive.
 *
 * Threat model. The API can do anything the console can (sign with the vault's keys, send
 * requests as the bank, export the customers' secret keys), so everyone but the person who
 * launched it is an adversary:
 *
 * - Other local users and processes can connect to any port on 127.0.0.1. They do not know the
 *   random 32-byte per-launch token, which only the launching user sees (printed on its
 *   terminal, or in the ready line its own program reads). Every request under `/api` (calls,
 *   the event stream, downloads) must carry it in the X-DETS-Token header, and only there; it is
 *   compared in constant time; a request without it gets 401 and reaches nothing. We bind to
 *   127.0.0.1 by default; a non-loopback --host leaves the token as the only protection, and
 *   the CLI says so.
 * - Other local servers the user's browser visits (a dev server, the bank's own backend on
 *   another port): a browser sends every 127.0.0.1 cookie to every port of 127.0.0.1, so a
 *   cookie would hand the token to them (issue 24 item 9: one replayed it and exported the
 *   customers' secret keys). So no cookie carries or grants access (DESIGN.md "Architecture"):
 *   this server sets none and ignores every cookie it receives. The page keeps the token in
 *   localStorage, which is scoped to its origin including the port, and sends it in the header;
 *   the page's own requests omit credentials, so no cookie anyone set travels either.
 * - The query `?token=` is read by the page's script only (once, then removed from the address
 *   bar); the server accepts it nowhere, not even on the entry page, which needs no credential.
 *   A token accepted from a URL could be spent by any navigation, image or form another page
 *   triggers; a header can only be added by a same-origin script, since another origin needs a
 *   CORS preflight this server never grants.
 * - The page and its assets (the built renderer: HTML, JS, CSS) are public code with no secret in
 *   them, the same bytes for every launch, and are served without a credential: a second tab
 *   must load them before it can read the token from storage. They reveal nothing a copy of the
 *   package would not. Host is still checked first (rebinding), and CORP keeps other origins
 *   from embedding them.
 * - Web pages in the user's browser can send requests to 127.0.0.1. With no ambient credential
 *   there is nothing for a cross-site request to ride on; in depth, any request with an Origin
 *   header that is not this server's own origin is refused with 403 (pages on other local ports
 *   are same-site but not same-origin), mutations are POST only, and
 *   Cross-Origin-Resource-Policy stops other origins from embedding what it serves.
 * - DNS rebinding: a hostile name re-pointed at 127.0.0.1 makes the browser treat this server as
 *   that name's origin. The Host header then names the hostile name, so any Host other than the
 *   bound address or localhost at our port is refused with 403, before anything else. (A
 *   rebound origin also has its own storage, so it never sees the token the page stored.)
 * - The page: a strict Content-Security-Policy (own scripts only, no framing), so no script but
 *   ours runs on this origin and reads its storage; no referrer (the first URL holds the
 *   token), no caching of the page or the API.
 * - Slow clients (a local process trickling headers to hold connections open): the listener
 *   bounds of core/http/listener.ts, the same as the bank's and the sandbox's, answer 408 and
 *   close a connection whose headers or request take too long, so each holds only itself.
 *
 * Residual risk, accepted: the token sits in the browser profile's storage (on disk, readable by
 * the same OS user, who can read the terminal that printed it anyway) until a 401 clears it.
 * It is worth nothing after this launch: a later server on the same port, which could read that
 * origin's storage, finds a token no running console accepts.
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
import { allowedHosts, createToken, isApiPath, isSameOrigin, presentedToken, tokenMatches } from './auth';
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

    const { path } = target;
    if (isApiPath(path)) return handleApi(req, res, path);

    // The renderer's files: public code, served without a credential (see the threat model).
    if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(res, req.method, path, 'GET, HEAD');
    const served = await serveStatic(req, res, rendererDir, path);
    if (served === 'not-found') sendError(res, 404, 'NOT_FOUND', `no file at ${path}`);
  }

  /** Everything under /api: the header token first, then the call, the stream or a download. */
  async function handleApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!tokenMatches(token, presentedToken(req))) {
      const hint = `missing or wrong ${TRANSPORT.tokenHeader} header: open the URL printed when this server started`;
      return sendError(res, 401, 'UNAUTHORIZED', hint, { 'WWW-Authenticate': 'DETS-Token' });
    }
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
    return sendError(res, 404, 'NOT_FOUND', `no API at ${path}`);
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
