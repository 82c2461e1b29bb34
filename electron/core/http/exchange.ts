/**
 * One outgoing HTTP request, measured: when the connection was made, when the whole answer had
 * arrived, what it was. Used where timing is itself under test (spec 4.2: a bank callback must
 * answer within 1 second), so it never throws and never pools connections (`agent: false`):
 * every call opens its own connection, as a caller that cannot assume keep-alive would.
 *
 * A hard `giveUpMs` bounds how long it waits at all; a body above `maxBytes` is cut short.
 */
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

export interface ExchangeRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Abandon the request after this many milliseconds. */
  giveUpMs: number;
  /** Keep at most this many bytes of the answer (default 1 MiB). */
  maxBytes?: number;
  /**
   * HTTPS to the console's own listener (a replay): the PEM certificate it serves. That exact
   * certificate is trusted, self-signed or not and whatever names it carries, and no other.
   */
  pinnedCert?: string;
  /**
   * A lost acknowledgement (issue 27, DESIGN.md "Sandbox service" `lost_ack`): close the
   * connection as soon as the status line and headers arrive, so the answer counts as lost
   * (`ok: false`, phase `response`, `droppedStatus` naming what the bank had answered).
   */
  dropOnStatus?: boolean;
}

/**
 * TLS options that accept exactly `pem`'s certificate: it is added to the trusted roots (so a
 * self-signed one verifies) and the identity check compares fingerprints instead of host names
 * (the listener is reached at 127.0.0.1 whatever its certificate names).
 */
function pinnedTls(pem: string): https.RequestOptions {
  const want = new X509Certificate(pem).fingerprint256;
  return {
    ca: [...tls.rootCertificates, pem],
    checkServerIdentity: (_host, peer) =>
      peer.fingerprint256 === want
        ? undefined
        : new Error(`the certificate answered (${peer.fingerprint256}) is not the listener's own (${want})`),
  };
}

export type ExchangeResult =
  | {
      ok: true;
      status: number;
      headers: Record<string, string>;
      body: Buffer;
      /** The body was longer than `maxBytes` and was cut short. */
      truncated: boolean;
      /** From the start until the whole answer had arrived. */
      durationMs: number;
      /** From the start until the TCP (and TLS) connection was up. */
      connectMs: number | null;
    }
  | {
      ok: false;
      /** connect: no connection; response: connected but no (complete) answer; timeout: gave up. */
      phase: 'connect' | 'response' | 'timeout';
      connected: boolean;
      connectMs: number | null;
      message: string;
      durationMs: number;
      /** With `dropOnStatus`: the status the bank answered before the connection was closed. */
      droppedStatus?: number;
    };

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : null;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ECONNREFUSED') return `connection refused (${message})`;
  if (code === 'ENOTFOUND') return `host not found (${message})`;
  if (code === 'ECONNRESET') return `connection reset (${message})`;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * Sends one request and reports what happened. Never throws.
 *
 * @example
 * const r = await exchange({ method: 'GET', url, headers: { 'X-Session-ID': token }, giveUpMs: 5000 });
 * if (r.ok && r.durationMs > 1000) console.log('answered, but late');
 */
export function exchange(request: ExchangeRequest): Promise<ExchangeResult> {
  const maxBytes = request.maxBytes ?? 1024 * 1024;
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  return new Promise((resolve) => {
    let settled = false;
    let connectMs: number | null = null;
    let req: http.ClientRequest | undefined;
    const timer = setTimeout(() => {
      fail('timeout', `no complete answer within ${request.giveUpMs} ms; gave up`);
      req?.destroy();
    }, request.giveUpMs);
    const finish = (result: ExchangeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const fail = (phase: 'connect' | 'response' | 'timeout', message: string) =>
      finish({ ok: false, phase, connected: connectMs !== null, connectMs, message, durationMs: elapsed() });

    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      fail('connect', `not a valid URL: ${request.url}`);
      return;
    }
    const lib = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));

    try {
      req = lib.request(url, {
        method: request.method,
        headers,
        agent: false,
        ...(request.pinnedCert && url.protocol === 'https:' ? pinnedTls(request.pinnedCert) : {}),
      });
    } catch (err) {
      fail('connect', describeError(err));
      return;
    }
    const sent = req;
    sent.on('socket', (socket) => {
      const connected = () => {
        connectMs ??= elapsed();
      };
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    sent.on('error', (err) => fail(connectMs === null ? 'connect' : 'response', describeError(err)));
    sent.on('response', (res) => {
      connectMs ??= elapsed();
      if (request.dropOnStatus) {
        const status = res.statusCode ?? 0;
        finish({
          ok: false,
          phase: 'response',
          connected: true,
          connectMs,
          message: `the connection was closed as the answer's status line (${status}) arrived: the acknowledgement was lost`,
          durationMs: elapsed(),
          droppedStatus: status,
        });
        sent.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      /** The answer as read: all of it, or the first maxBytes (truncated). */
      const whole = () =>
        finish({
          ok: true,
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          body: Buffer.concat(chunks),
          truncated,
          durationMs: elapsed(),
          connectMs,
        });
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        if (size + chunk.length > maxBytes) {
          chunks.push(chunk.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          whole();
          sent.destroy();
          return;
        }
        size += chunk.length;
        chunks.push(chunk);
      });
      res.on('end', whole);
      res.on('error', (err) => fail('response', `the answer broke off: ${describeError(err)}`));
      res.on('close', () => {
        if (!res.complete) fail('response', 'the answer broke off before it was complete');
      });
    });
    sent.end(request.body);
  });
}
