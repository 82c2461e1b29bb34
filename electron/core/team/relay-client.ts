/**
 * The laptop's end of the relay (issue 30 item 3; DESIGN.md "Team hub": `attach … --forward-to
 * URL --route obj=GLOB|sub=GLOB`): one outbound connection to the hub (an HTTP upgrade on the
 * hub's UI listener, TLS as the hub is, the member token in its Authorization header), its
 * routes registered on it, and every request the hub relays passed to the engineer's backend at
 * `--forward-to`, its answer sent back. A lost connection is made again with the attach
 * process's backoff (backoff.ts) and the routes registered again, so they resume.
 *
 * Threat model: the member token goes only to the hub. The hub's frames are checked
 * (relay-frames.ts); the laptop calls only its own backend, at the path the hub names under
 * `--forward-to` (a path, never a host: the URL is built here), with at most
 * {@link MAX_BACKEND_CALLS} calls in flight (more are refused at once, and the hub answers them
 * itself) and each call bounded by the budget the hub gives.
 */
import http from 'node:http';
import https from 'node:https';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ConsoleError } from '../../contract';
import type { RouteInfo, RouteRequest } from '../../contract/schemas/team';
import { exchange } from '../http';
import { Backoff } from './backoff';
import {
  frameLine,
  frameReader,
  HubFrame,
  type LaptopFrame,
  RELAY_MAX_BODY,
  RELAY_PATH,
  RELAY_PROTOCOL,
} from './relay-frames';

/** Calls to the backend in flight at once; more are refused (the hub answers them itself). */
export const MAX_BACKEND_CALLS = 64;
/** How long adding a route waits for the hub's word. */
const ADD_WAIT_MS = 10_000;

export interface RelayClientOptions {
  hub: URL;
  token: string;
  /** The engineer's backend (`--forward-to`), without a trailing slash. */
  forwardTo: string;
  routes: RouteRequest[];
  /** This laptop's name as the team sees it (its host name). */
  name: string;
  log?: (line: string) => void;
}

/** How the first connection went: welcomed with routes, or refused (401/403 exit 2) or failed. */
export type RelayStart =
  { ok: true; routes: RouteInfo[] } | { ok: false; status: number | null; message: string };

/** The laptop's relay connection. */
export class RelayClient {
  private readonly routes: RouteRequest[];
  private socket: Duplex | null = null;
  private readonly backoff = new Backoff();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private up = false;
  private inFlight = 0;
  private nextRef = 1;
  private readonly waiters = new Map<number, (frame: Extract<HubFrame, { t: 'added' }> | null) => void>();
  private started: ((start: RelayStart) => void) | null = null;
  /** The hub's route ids, to `field=glob` (a removal names the id). */
  private readonly ids = new Map<string, string>();
  /** What the hub's last `bye` said. */
  private bye: string | null = null;

  /** This laptop's backend (`--forward-to`), as the attached page shows it. */
  get forwardTo(): string {
    return this.options.forwardTo;
  }

  constructor(private readonly options: RelayClientOptions) {
    this.routes = [...options.routes];
  }

  /** Connects, and answers how the first attempt went (later losses are retried quietly). */
  start(): Promise<RelayStart> {
    return new Promise((resolve) => {
      this.started = resolve;
      this.connect();
    });
  }

  private settle(start: RelayStart): void {
    const s = this.started;
    this.started = null;
    s?.(start);
  }

  private connect(): void {
    if (this.closed) return;
    const url = new URL(RELAY_PATH, this.options.hub);
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'GET',
      headers: {
        Connection: 'Upgrade',
        Upgrade: RELAY_PROTOCOL,
        Authorization: `Bearer ${this.options.token}`,
      },
      timeout: 15_000,
    });
    req.on('upgrade', (_res, socket, head) => this.opened(socket, head));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.length < 64 && chunks.push(d));
      res.on('end', () => {
        let message = `the hub answered ${res.statusCode ?? '?'}`;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { message?: string } };
          if (body.error?.message) message = `${message}: ${body.error.message}`;
        } catch {
          // not an envelope: the status says enough
        }
        this.settle({ ok: false, status: res.statusCode ?? null, message });
        this.lost(message);
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', (err) => {
      this.settle({ ok: false, status: null, message: `the hub cannot be reached: ${err.message}` });
      this.lost(err.message);
    });
    req.end();
  }

  private opened(socket: Duplex, head: Buffer): void {
    if (this.closed) return void socket.destroy();
    this.socket = socket;
    if (socket instanceof Socket) {
      // The request's 15 s timeout was for the upgrade; the hub's pings keep the relay honest.
      socket.setTimeout(0);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 10_000);
    }
    const read = frameReader(
      HubFrame,
      (f) => this.received(f),
      (why) => {
        this.options.log?.(`relay: the hub sent ${why}; reconnecting`);
        socket.destroy();
      },
    );
    socket.on('data', read);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket === socket) this.lost('the relay connection closed');
    });
    this.send({
      t: 'hello',
      name: this.options.name,
      forward_to: this.options.forwardTo,
      routes: this.routes,
    });
    if (head.length > 0) read(head);
  }

  private received(f: HubFrame): void {
    switch (f.t) {
      case 'welcome':
        this.backoff.reset();
        this.up = true;
        for (const r of f.routes) this.ids.set(r.id, `${r.field}=${r.glob}`);
        this.options.log?.(
          `relay: connected; routes ${f.routes.map((r) => `${r.field}=${r.glob}`).join(', ') || '(none yet)'} → ${this.options.forwardTo}`,
        );
        return this.settle({ ok: true, routes: f.routes });
      case 'relay':
        return void this.relayed(f);
      case 'ping':
        return this.send({ t: 'pong' });
      case 'added':
        this.waiters.get(f.ref)?.(f);
        return;
      case 'removed': {
        const gone = this.routes.findIndex((r) => `${r.field}=${r.glob}` === this.ids.get(f.id));
        if (gone >= 0) this.routes.splice(gone, 1);
        return;
      }
      case 'bye':
        this.bye = f.why;
        this.options.log?.(`relay: the hub said: ${f.why}`);
        return;
    }
  }

  private async relayed(f: Extract<HubFrame, { t: 'relay' }>): Promise<void> {
    if (this.inFlight >= MAX_BACKEND_CALLS)
      return this.send({
        t: 'refused',
        id: f.id,
        why: `${MAX_BACKEND_CALLS} calls to the backend in flight already`,
      });
    this.inFlight++;
    const url = `${this.options.forwardTo}${f.path.startsWith('/') ? f.path : `/${f.path}`}`;
    try {
      const r = await exchange({
        method: f.method,
        url,
        headers: f.headers,
        ...(f.body !== null ? { body: f.body } : {}),
        giveUpMs: f.budget_ms,
        maxBytes: RELAY_MAX_BODY,
      });
      if (!r.ok) return this.send({ t: 'refused', id: f.id, why: `the backend at ${url}: ${r.message}` });
      const type = r.headers['content-type'];
      this.send({
        t: 'answer',
        id: f.id,
        status: r.status,
        headers: type ? { 'content-type': type.slice(0, 200) } : {},
        body_b64: r.body.toString('base64'),
        truncated: r.truncated,
        duration_ms: r.durationMs,
      });
    } finally {
      this.inFlight--;
    }
  }

  /** Adds a route on this connection (team.addRoute on the attached page); kept for reconnects. */
  async add(route: RouteRequest): Promise<RouteInfo> {
    if (!this.up || !this.socket)
      throw new ConsoleError(
        'SERVICE_UNREACHABLE',
        'the relay connection to the hub is down; try again once it is back',
      );
    const ref = this.nextRef++;
    const frame = await new Promise<Extract<HubFrame, { t: 'added' }> | null>((resolve) => {
      const t = setTimeout(() => resolve(null), ADD_WAIT_MS);
      this.waiters.set(ref, (f) => {
        clearTimeout(t);
        resolve(f);
      });
      this.send({ t: 'add', ref, route });
    });
    this.waiters.delete(ref);
    if (frame === null)
      throw new ConsoleError('SERVICE_UNREACHABLE', 'the hub did not confirm the route in time');
    if (!frame.route) {
      const e = frame.error ?? { code: 'INTERNAL', message: 'refused' };
      throw new ConsoleError(e.code === 'CONFLICT' ? 'CONFLICT' : 'SERVICE_REFUSED', e.message);
    }
    this.ids.set(frame.route.id, `${route.field}=${route.glob}`);
    if (!this.routes.some((r) => r.field === route.field && r.glob === route.glob)) this.routes.push(route);
    return frame.route;
  }

  private send(frame: LaptopFrame): void {
    const s = this.socket;
    if (s && !s.destroyed && s.writable) s.write(frameLine(frame));
  }

  private lost(why: string): void {
    // Closed before its welcome: the first attempt failed (the hub's bye says why, a 409-like refusal).
    this.settle({ ok: false, status: this.bye ? 409 : null, message: this.bye ?? why });
    this.bye = null;
    this.socket?.destroy();
    this.socket = null;
    for (const w of this.waiters.values()) w(null);
    if (this.closed) return;
    if (this.up) this.options.log?.(`relay: connection lost (${why}); reconnecting`);
    this.up = false;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, this.backoff.next());
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.destroy();
    this.socket = null;
  }
}
