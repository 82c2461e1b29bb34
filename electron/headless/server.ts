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
 * The checks, in that order, are in requests.ts.
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
import {
  createBoundedServer,
  createBoundedTlsServer,
  type ListenerBounds,
  type TlsMaterial,
} from '../core/http/listener';
import type { TeamGuard } from '../core/team';
import { allowedHosts, createToken } from './auth';
import { EventStream } from './event-stream';
import { sendError } from './http-util';
import { handleRequest, type HeadlessCore, type RequestState } from './requests';
import { hubUpgrade } from './team-requests';
import type { Duplex } from 'node:stream';
import { defaultRendererDir } from './static-files';

export type { HeadlessCore } from './requests';

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
  /** serve --team: member tokens, roles and the audit trail at the door (team-requests.ts). */
  team?: TeamGuard;
  /** Serve HTTPS with this PEM certificate and key (a hub off loopback requires it). */
  tls?: TlsMaterial;
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
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  const state: RequestState = {
    core: options.core,
    token: createToken(),
    stream: new EventStream(options.core.events, options.heartbeatMs ?? 15_000),
    rendererDir,
    hosts: new Set<string>(),
    closing: false,
    ...(options.team ? { team: options.team } : {}),
  };
  let closing: Promise<void> | undefined;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    handleRequest(state, req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendError(res, 500, 'INTERNAL', err instanceof Error ? err.message : String(err));
      } else {
        res.destroy();
      }
    });
  };
  const server = options.tls
    ? createBoundedTlsServer(handle, options.tls, options.bounds)
    : createBoundedServer(handle, options.bounds);
  // A team hub's routes: laptops' relay connections arrive as an HTTP upgrade (team-requests.ts).
  const team = options.team;
  if (team?.relay) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      hubUpgrade(team, state.token, req, socket, head).catch(() => socket.destroy());
    });
  }
  // In-flight responses, so that stopping can tell them to close their keep-alive connection.
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  const address = server.address() as AddressInfo;
  state.hosts = allowedHosts(address.address, address.port, interfaceAddresses());
  const url = `${options.tls ? 'https' : 'http'}://${urlHost(address.address)}:${address.port}/`;

  return {
    url,
    tokenUrl: `${url}?${TRANSPORT.tokenQuery}=${state.token}`,
    token: state.token,
    host: address.address,
    port: address.port,
    rendererDir,
    close() {
      state.closing = true;
      closing ??= stop(server, state.stream, inFlight, options.closeTimeoutMs ?? 10_000);
      return closing;
    },
  };
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
