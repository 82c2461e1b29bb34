/**
 * The node:http listeners of the console. Every listener (the browser-mode UI server, the bank
 * endpoints, the sandbox; DESIGN.md "Bank endpoints": "every listener bounds header and request
 * time") is made by {@link createBoundedServer}, so that one place sets how long a client may
 * take: headers within 10 s, the whole request within 30 s, idle keep-alive connections closed
 * after 5 s, checked every second. A slow or abandoned client then holds only its own connection,
 * and for at most those bounds.
 *
 * {@link startServer}, which the sandbox and the bank endpoints share, adds: requests handled a
 * turn at a time ({@link turnBatched}), loopback by default (the host decides), malformed HTTP
 * answered with a JSON 400, and a close that stops accepting,
 * lets in-flight requests finish (bounded), and then resolves. Given `tls` (a PEM certificate and
 * key, checked by core/tunnel/tls.ts before they get here) it serves HTTPS with the same bounds
 * (DESIGN.md "Command line": `--tls-cert`/`--tls-key`).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './respond';

export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * How often node looks for connections past their header or request time. Node's default
 * (30 s) would let a slow client stay up to 30 s beyond the bound.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** How long close() waits for in-flight requests before cutting their connections. */
export const CLOSE_GRACE_MS = 10_000;
/** Headers above this are answered 431 (a service JWT is well under 4 KiB). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** How long a client may take, per connection. */
export interface ListenerBounds {
  /** From the first byte of a request to the end of its headers; then 408 and close. */
  headersTimeoutMs: number;
  /** From the first byte of a request to the end of its body; then 408 and close. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often the two timeouts above are checked. */
  checkIntervalMs: number;
}

/** The production bounds. */
export const LISTENER_BOUNDS: Readonly<ListenerBounds> = Object.freeze({
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
  checkIntervalMs: TIMEOUT_CHECK_INTERVAL_MS,
});

/**
 * An http.Server with the listener bounds ({@link LISTENER_BOUNDS} unless `bounds` overrides
 * some, as tests do to stay short). It is not listening yet.
 *
 * @example
 * const server = createBoundedServer(handle);
 * server.listen(0, '127.0.0.1');
 */
export function createBoundedServer(
  handle?: (req: IncomingMessage, res: ServerResponse) => void,
  bounds: Partial<ListenerBounds> = {},
): http.Server {
  const b = { ...LISTENER_BOUNDS, ...bounds };
  const options: http.ServerOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    keepAliveTimeout: b.keepAliveTimeoutMs,
    headersTimeout: b.headersTimeoutMs,
    requestTimeout: b.requestTimeoutMs,
    connectionsCheckingInterval: b.checkIntervalMs,
  };
  const server = handle ? http.createServer(options, handle) : http.createServer(options);
  // Set again on the instance: these are the properties node reads, whatever the options did.
  server.headersTimeout = b.headersTimeoutMs;
  server.requestTimeout = b.requestTimeoutMs;
  server.keepAliveTimeout = b.keepAliveTimeoutMs;
  return server;
}

/**
 * `handle`, run a turn at a time: the requests node parses in one turn of the event loop (its
 * poll phase reads every socket that is ready) are handled together right after it (one
 * setImmediate), in the order they arrived, so their answers leave in one burst.
 *
 * Answered one by one as each is parsed, every answer on a busy listener wakes its client
 * separately: on loopback the write runs the client's receive path and wakes its thread, on
 * another core. Answered in a burst, the first answer wakes the client and the rest find it
 * awake: the syscalls and context switches per request are the same, the kernel's wakeup path
 * is what shrinks (the CPU per request either way: docs/benchmarks.md, "Answers a turn at a
 * time" and "Figures moved from code comments"). The delay is only the rest of the turn: an idle
 * listener answers as soon as before.
 *
 * A handler that throws (rather than answering 500 itself) gets a 500 for its request and the
 * turn's other requests are still handled.
 *
 * @example
 * http.createServer(turnBatched((req, res) => res.end('ok')));
 */
export function turnBatched(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  // Requests and their responses, alternately: one array, no pair objects.
  let waiting: (IncomingMessage | ServerResponse)[] = [];
  const drain = () => {
    const turn = waiting;
    waiting = [];
    for (let i = 0; i < turn.length; i += 2) {
      const req = turn[i] as IncomingMessage;
      const res = turn[i + 1] as ServerResponse;
      try {
        handle(req, res);
      } catch (err) {
        // As the bank's own 500s say it; sendJson does nothing if the handler had answered.
        const why = err instanceof Error ? err.message : String(err);
        sendJson(res, 500, { error: 'internal', detail: `the request handler failed: ${why}` });
      }
    }
  };
  return (req, res) => {
    if (waiting.push(req, res) === 2) setImmediate(drain);
  };
}

/** A PEM certificate (chain) and its private key, for an HTTPS listener. */
export interface TlsMaterial {
  cert: string;
  key: string;
}

/** {@link createBoundedServer} for HTTPS: the same bounds, over TLS. Not listening yet. */
export function createBoundedTlsServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  tls: TlsMaterial,
  bounds: Partial<ListenerBounds> = {},
): https.Server {
  const b = { ...LISTENER_BOUNDS, ...bounds };
  const server = https.createServer(
    {
      cert: tls.cert,
      key: tls.key,
      maxHeaderSize: MAX_HEADER_BYTES,
      keepAliveTimeout: b.keepAliveTimeoutMs,
      headersTimeout: b.headersTimeoutMs,
      requestTimeout: b.requestTimeoutMs,
      connectionsCheckingInterval: b.checkIntervalMs,
      // A TLS handshake counts against the header time as well: a client that opens a socket
      // and never finishes the handshake is dropped like one that never sends headers.
      handshakeTimeout: b.headersTimeoutMs,
    },
    handle,
  );
  server.headersTimeout = b.headersTimeoutMs;
  server.requestTimeout = b.requestTimeoutMs;
  server.keepAliveTimeout = b.keepAliveTimeoutMs;
  return server;
}

export interface RunningServer {
  url: string;
  port: number;
  /** The PEM certificate served (HTTPS), so the console's own requests to it can trust it; else null. */
  cert: string | null;
  close(): Promise<void>;
}

function clientErrorBody(code: string | undefined): { status: number; text: string } {
  const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const error =
    status === 431 ? 'request_header_fields_too_large' : status === 408 ? 'request_timeout' : 'bad_request';
  const detail =
    status === 431
      ? 'the request headers are too large'
      : status === 408
        ? 'the request was not received in time'
        : `malformed HTTP request${code ? ` (${code})` : ''}`;
  return { status, text: JSON.stringify({ error, detail }) };
}

/**
 * Starts a server for `handle` on host:port (port 0: any free port).
 *
 * @example
 * const s = await startServer(router.handle.bind(router), { host: '127.0.0.1', port: 0 });
 * console.log(s.url); // http://127.0.0.1:40123
 */
/** A request refused before it reached the handler (oversized headers, timeout, malformed HTTP). */
export interface ClientErrorInfo {
  status: number;
  /** Node's error code, e.g. HPE_HEADER_OVERFLOW. */
  code: string | null;
  /** The JSON body sent. */
  body: string;
  remote: string | null;
}

export function startServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  options: {
    host: string;
    port: number;
    onClientError?: (info: ClientErrorInfo) => void;
    /** The listener bounds; {@link LISTENER_BOUNDS} unless a test shortens some. */
    bounds?: Partial<ListenerBounds>;
    /** Serve HTTPS with this certificate and key (the URL then starts with https://). */
    tls?: TlsMaterial;
  },
): Promise<RunningServer> {
  const inTurns = turnBatched(handle);
  const server = options.tls
    ? createBoundedTlsServer(inTurns, options.tls, options.bounds)
    : createBoundedServer(inTurns, options.bounds);
  const scheme = options.tls ? 'https' : 'http';
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, text } = clientErrorBody(err.code);
    try {
      options.onClientError?.({
        status,
        code: err.code ?? null,
        body: text,
        remote: (socket as Socket).remoteAddress ?? null,
      });
    } catch {
      // Recording a refusal never stops the refusal.
    }
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Connection: close\r\n\r\n${text}`,
    );
  });

  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      let closing: Promise<void> | null = null;
      resolve({
        url: `${scheme}://${host}:${address.port}`,
        port: address.port,
        cert: options.tls?.cert ?? null,
        close: () => (closing ??= closeServer(server)),
      });
    });
  });
}

function closeServer(server: http.Server | https.Server): Promise<void> {
  return new Promise((resolve) => {
    // Connections that finish their request while closing become idle: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
