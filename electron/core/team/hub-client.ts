/**
 * The laptop's side of a team hub (issue 30 item 2; DESIGN.md "Team hub": `attach HUB_URL
 * --token`): a core whose calls and live events are the hub's. Every call goes to the hub's API
 * with the member token; the hub's event stream is re-emitted here, so the local browser-mode
 * server (electron/headless) serves the hub's pages on loopback behind its own per-launch token.
 *
 * Threat model: the member token stays in this process: it is sent only to HUB_URL (never to
 * the local page, never logged), over TLS unless the hub is on loopback. What the hub answers
 * is data for the page (validated by the contract on emit). A lost stream is re-made with
 * backoff, each change told to the page as a notice (`app.noticed`).
 */
import http from 'node:http';
import https from 'node:https';
import { type Envelope, TRANSPORT, isEventName } from '../../contract';
import { EventHub } from '../event-hub';
import { Backoff } from './backoff';

/** A call's answer larger than this is refused (an export's page is far smaller). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** What a hub call answers: the envelope, or a transport failure as an envelope. */
function failure(message: string): Envelope<unknown> {
  return { ok: false, error: { code: 'SERVICE_UNREACHABLE', message } };
}

/** The live link to a hub as it changes: up, or lost and retried after `retryInMs` (backoff). */
export interface HubLinkState {
  up: boolean;
  why: string;
  /** When lost: the wait before the next attempt. */
  retryInMs: number | null;
  /** Failed attempts since the link was last up. */
  attempts: number;
}

/** The hub, as a core to the local server. */
export class HubClient {
  readonly events = new EventHub();
  private stream: http.ClientRequest | null = null;
  private readonly backoff = new Backoff();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private connected: boolean | null = null;
  private attempts = 0;

  constructor(
    /** The hub's base URL (`https://hub.bank.internal:7300/`). */
    readonly hub: URL,
    private readonly token: string,
    private readonly log: (line: string) => void = () => undefined,
    /** Hears every change of the live link (the desktop app's start page shows it). */
    private readonly onLink: (state: HubLinkState) => void = () => undefined,
  ) {}

  private request(path: string, method: string): http.ClientRequest {
    const url = new URL(path, this.hub);
    const mod = url.protocol === 'https:' ? https : http;
    return mod.request(url, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      timeout: 30_000,
    });
  }

  /** Calls `method` on the hub; the hub's envelope, or SERVICE_UNREACHABLE naming why. */
  dispatch(method: string, input: unknown): Promise<Envelope<unknown>> {
    return new Promise((resolve) => {
      const req = this.request(`${TRANSPORT.callPathPrefix}${method}`, 'POST');
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('answer too large'));
          else chunks.push(d);
        });
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Envelope<unknown>);
          } catch {
            resolve(
              failure(`The hub ${this.hub.origin} answered ${res.statusCode ?? '?'} without an envelope.`),
            );
          }
        });
        res.on('error', (err) => resolve(failure(`The hub ${this.hub.origin}: ${err.message}`)));
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
      req.on('error', (err) =>
        resolve(failure(`The hub ${this.hub.origin} cannot be reached: ${err.message}`)),
      );
      req.end(input === undefined ? '' : JSON.stringify(input));
    });
  }

  /** Starts following the hub's live events (re-made with backoff when lost). */
  follow(): void {
    if (this.closed || this.stream) return;
    const req = this.request(TRANSPORT.eventsPath, 'GET');
    req.setTimeout(0);
    this.stream = req;
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        this.lost(`the hub answered ${res.statusCode ?? '?'} to the event stream`);
        return;
      }
      this.backoff.reset();
      this.attempts = 0;
      this.state(true, 'connected to the hub', null);
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        if (buf.length > 8 * 1024 * 1024) return req.destroy(new Error('event too large'));
        const parts = buf.split('\n\n');
        buf = parts.pop()!;
        for (const p of parts) this.received(p);
      });
      res.on('end', () => this.lost('the hub closed the event stream'));
      res.on('error', (err) => this.lost(err.message));
    });
    req.on('error', (err) => this.lost(err.message));
    req.end();
  }

  private received(message: string): void {
    const name = /^event: (.+)$/m.exec(message)?.[1];
    const data = /^data: (.*)$/m.exec(message)?.[1];
    if (!name || data === undefined || !isEventName(name)) return;
    try {
      this.events.emit(name, JSON.parse(data) as never);
    } catch {
      // A payload the contract refuses is not forwarded to the page.
    }
  }

  private state(up: boolean, why: string, retryInMs: number | null): void {
    try {
      this.onLink({ up, why, retryInMs, attempts: this.attempts });
    } catch {
      // a listener's failure never breaks the stream
    }
    if (this.connected === up) return;
    this.connected = up;
    const message = up
      ? `Hub ${this.hub.host}: ${why}.`
      : `Hub ${this.hub.host}: connection lost (${why}); retrying.`;
    this.log(message);
    try {
      this.events.emit('app.noticed', {
        at: new Date().toISOString(),
        level: up ? 'info' : 'warning',
        message,
      });
    } catch {
      // never breaks the stream
    }
  }

  private lost(why: string): void {
    if (!this.stream) return;
    this.stream.destroy();
    this.stream = null;
    if (this.closed) return;
    this.attempts += 1;
    const wait = this.backoff.next();
    this.state(false, why, wait);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.follow();
    }, wait);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stream?.destroy();
    this.stream = null;
  }
}
