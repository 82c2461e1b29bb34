/**
 * "Test from outside" (issue 14): a one-time marker sent to
 * `<public URL>/.well-known/dets-console/probe/<marker>` must arrive at this console's bank
 * listener, which answers it back. Three outcomes a person can act on: reachable (the marker came
 * back through this listener, with the round trip), unreachable (nothing answered) and foreign
 * (something answered, but not this console: another server, a stale tunnel, a proxy page).
 *
 * Threat model: the probe route is open to anyone who can reach the listener. It answers only a
 * 32-hex-digit marker with that same marker, reveals nothing else, is not recorded as a callback,
 * and a marker counts only if this process issued it in the last minute and it was not used.
 */
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProbeResult } from '../../contract/schemas/tunnel';

export const PROBE_PATH = '/.well-known/dets-console/probe/';
const MARKER = /^[0-9a-f]{32}$/;
/** An issued marker is forgotten after this. */
const MARKER_TTL_MS = 60_000;
export const PROBE_TIMEOUT_MS = 10_000;

/** The markers this console issued, and which of them its listener has received. */
export class ProbeBook {
  private readonly issued = new Map<string, { at: number; received: boolean }>();

  issue(): string {
    const now = Date.now();
    for (const [m, v] of this.issued) if (now - v.at > MARKER_TTL_MS) this.issued.delete(m);
    const marker = randomBytes(16).toString('hex');
    this.issued.set(marker, { at: now, received: false });
    return marker;
  }

  /** True once the listener has received `marker`; forgets it. */
  take(marker: string): boolean {
    const entry = this.issued.get(marker);
    this.issued.delete(marker);
    return entry?.received ?? false;
  }

  /**
   * The listener's side: answers a probe request and returns true, or returns false for every
   * other request (which then goes on to the bank endpoints).
   */
  readonly respond = (req: IncomingMessage, res: ServerResponse): boolean => {
    const pathOnly = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (!pathOnly.startsWith(PROBE_PATH)) return false;
    req.resume();
    const marker = pathOnly.slice(PROBE_PATH.length);
    if (req.method !== 'GET' || !MARKER.test(marker)) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('not a probe marker\n');
      return true;
    }
    const entry = this.issued.get(marker);
    if (entry) entry.received = true;
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(marker);
    return true;
  };
}

interface Answer {
  status: number;
  body: string;
}

/** GET with a 10 s bound and a 1 KiB body cap; `insecure` skips certificate checks. */
function get(url: string, insecure: boolean, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http;
    const req = lib.get(
      url,
      {
        headers: { 'User-Agent': 'dets-console-probe', Accept: 'text/plain' },
        ...(insecure ? { rejectUnauthorized: false } : {}),
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < 1024) body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })),
    );
    req.on('error', reject);
  });
}

const CERT_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT_ALTNAME/;

/**
 * Probes `publicUrl` (null: says there is nothing to probe).
 *
 * @example
 * const result = await runProbe('https://words.trycloudflare.com', book);
 * result.outcome; // 'reachable'
 */
export async function runProbe(
  publicUrl: string | null,
  book: ProbeBook,
  options: { timeoutMs?: number } = {},
): Promise<ProbeResult> {
  const at = new Date().toISOString();
  if (!publicUrl) {
    return {
      at,
      url: null,
      outcome: 'no_public_url',
      rtt_ms: null,
      status: null,
      detail:
        'there is no public URL to test: start a tunnel or set the public URL (serve --public-url, Bank page)',
    };
  }
  const marker = book.issue();
  const url = `${publicUrl.replace(/\/+$/, '')}${PROBE_PATH}${marker}`;
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const started = performance.now();
  let answer: Answer;
  let certNote = '';
  try {
    try {
      answer = await get(url, false, timeoutMs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (!CERT_ERRORS.test(code)) throw err;
      // Reachability first; the certificate is reported beside it, since the service checks it.
      certNote = ` — but its TLS certificate is not trusted here (${code}): the service will refuse it unless it trusts that certificate`;
      answer = await get(url, true, timeoutMs);
    }
  } catch (err) {
    book.take(marker);
    const e = err as NodeJS.ErrnoException;
    return {
      at,
      url,
      outcome: 'unreachable',
      rtt_ms: null,
      status: null,
      detail: `nothing answered at ${publicUrl} (${e.code ? `${e.code}: ` : ''}${e.message}): the service cannot reach the bank endpoints there`,
    };
  }
  const rtt = Math.round((performance.now() - started) * 10) / 10;
  const received = book.take(marker);
  if (received && answer.status === 200 && answer.body.trim() === marker) {
    return {
      at,
      url,
      outcome: 'reachable',
      rtt_ms: rtt,
      status: answer.status,
      detail: `this console's bank listener received the marker sent to ${publicUrl} and answered it (${rtt} ms round trip)${certNote}`,
    };
  }
  const excerpt = answer.body.replace(/\s+/g, ' ').trim().slice(0, 120);
  return {
    at,
    url,
    outcome: 'foreign',
    rtt_ms: rtt,
    status: answer.status,
    detail: received
      ? `the marker reached this console, but the answer was changed on the way (HTTP ${answer.status}): something between rewrites responses`
      : `something else answered at ${publicUrl} (HTTP ${answer.status}${excerpt ? `: "${excerpt}"` : ''}): it is not this console's bank listener`,
  };
}
