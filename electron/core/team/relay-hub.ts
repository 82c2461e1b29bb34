/**
 * The hub's end of the relay (issue 30 item 3; DESIGN.md "Team hub"): attached laptops connect
 * out to it (relay-frames.ts), register routes (route-table.ts), and get the callbacks and
 * notifications their routes claim; the bank (core/bank relayed.ts) asks {@link RelayHub.relay}
 * before it answers anything itself.
 *
 * Budget: a relayed request waits until its deadline (the bank's RELAY_WAIT_MS after arrival) and
 * no longer. A laptop gone (its connection closed, SIGKILL included: the OS ends the TCP
 * connection), refusing (its backend unreachable, or over its bound) or holding
 * {@link MAX_IN_FLIGHT} requests already is `route.down`; one that answers after the deadline is
 * `route.late`. Either way the bank answers as it does unrouted, within the budget.
 *
 * Threat model: a laptop is a member's process with at least operator's role, but its frames are
 * still untrusted (a bug, a hostile build): a bad frame ends its connection (its routes go down,
 * nothing else changes); answers to ids it was not asked, or asked and given up, are dropped;
 * requests in flight per connection are bounded; a silent connection is dropped after
 * {@link SILENT_MS}. Route events are bounded to one per route a second (the rest counted in the
 * next), so a flood aimed at a dead route cannot double the hub's writes.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ConsoleError, toErrorData } from '../../contract';
import type { RouteInfo, RouteRequest } from '../../contract/schemas/team';
import type { CallbackRelay, RelayOutcome, RelayRequest } from '../bank';
import { blankEvent, type NewEvent } from '../store';
import type { Caller } from './audit';
import { frameLine, frameReader, type HubFrame, LaptopFrame } from './relay-frames';
import {
  addRoute,
  claimingRoute,
  connectionLost,
  type HubRoute,
  listRoutes,
  newRouteTable,
  removeRoute,
  routeInfo,
  type RouteTable,
} from './route-table';

/** Requests one laptop may have in flight; more are answered by the hub (`route.down`). */
export const MAX_IN_FLIGHT = 128;
/** A laptop must say hello this soon after connecting. */
const HELLO_MS = 10_000;
const PING_MS = 15_000;
/** A connection silent this long (no pong, no frame) is dropped. */
export const SILENT_MS = 45_000;

interface Pending {
  resolve: (outcome: RelayOutcome) => void;
  timer: NodeJS.Timeout;
  route: HubRoute;
  request: RelayRequest;
  started: number;
}

/** One laptop's relay connection. */
interface Connection {
  id: string;
  caller: Caller;
  socket: Duplex;
  name: string | null;
  forwardTo: string | null;
  pending: Map<number, Pending>;
  nextId: number;
  lastSeen: number;
  timer: NodeJS.Timeout | null;
}

/** Where the relay's records go, once the hub's store and door exist (serve-team.ts). */
export interface RelayHubOptions {
  /** Stores `route.down` and `route.late` events (the core's store). */
  record?: (event: NewEvent) => void;
  /** Audits a route added through a connection (TeamGuard.record). */
  audit?: (caller: Caller, method: string, input: unknown, error: string | null) => Promise<void>;
  log?: (line: string) => void;
  /** Told the whole route list after each change (the hub's `team.rerouted` event). */
  changed?: (routes: RouteInfo[]) => void;
}

/** A route of another hub on the same database (route-share-pg.ts). */
export interface PeerRoute extends HubRoute {
  /** The id of the hub holding its laptop's connection. */
  peer: string;
  /** That hub's name, for the team's list. */
  peerName: string;
}

/**
 * The other hubs on one database (`--store postgres://…`; route-share-pg.ts): their routes are
 * claimed with this hub's own by the one rule (route-table.ts), and a request one of theirs
 * claims is handed to its hub.
 */
export interface RoutePeers {
  /** This hub's name on the team's list. */
  readonly name: string;
  /** The live hubs' routes now (a hub whose heartbeat stopped is left out). */
  routes(): PeerRoute[];
  /**
   * Hands `request` to `route`'s hub; never rejects. `missed` records why the hub answers
   * itself when the other hub did not answer for its laptop (it records its laptop's misses).
   */
  forward(
    route: PeerRoute,
    request: RelayRequest,
    missed: (why: 'down' | 'late', words: string) => void,
  ): Promise<RelayOutcome>;
  /** This hub's own routes, after each change. */
  publish(routes: RouteInfo[]): void;
  /** Asks `route`'s hub to remove it (team.removeRoute here); gone from routes() at once. */
  remove(route: PeerRoute): void;
}

/** The hub's routes and the laptops' connections. */
export class RelayHub implements CallbackRelay {
  private readonly table: RouteTable;
  private peers: RoutePeers | null = null;
  private readonly connections = new Map<string, Connection>();
  /** Route events per route id: when the last was recorded, how many were held back since. */
  private readonly eventGate = new Map<string, { at: number; held: number }>();

  private options: RelayHubOptions = {};

  /** `idTag` ends each route id (unique among hubs sharing a database; route-table.ts). */
  constructor(idTag = '') {
    this.table = newRouteTable(idTag);
  }

  /** Joins the other hubs on one database (route-share-pg.ts); this hub's routes are published. */
  join(peers: RoutePeers): void {
    this.peers = peers;
    peers.publish(listRoutes(this.table));
  }

  /** The other hubs' routes changed: the pages are told the whole list. */
  peersChanged(): void {
    this.options.changed?.(this.list());
  }

  /** Sets where records go (the core's store and the hub's audit, once they exist). */
  configure(options: RelayHubOptions): void {
    this.options = { ...this.options, ...options };
  }

  /** The routes, as team.routes answers them: every hub's on one database, the oldest first. */
  list(): RouteInfo[] {
    const own = listRoutes(this.table);
    if (!this.peers) return own;
    const name = this.peers.name;
    const others = this.peers.routes().map((r) => ({ ...routeInfo(r), hub: r.peerName }));
    return [...own.map((r) => ({ ...r, hub: name })), ...others].sort((a, b) =>
      a.since < b.since ? -1 : a.since > b.since ? 1 : 0,
    );
  }

  /** Removes a route (team.removeRoute); its laptop is told, so it does not register it again. */
  remove(id: string): { removed: string } {
    const other = this.table.routes.has(id) ? undefined : this.peers?.routes().find((r) => r.id === id);
    // Another hub's: that hub removes it and tells its laptop (its list then comes back without it).
    if (other && this.peers) {
      this.peers.remove(other);
      this.options.changed?.(this.list());
      return { removed: id };
    }
    const r = removeRoute(this.table, id);
    const c = r.connection ? this.connections.get(r.connection) : undefined;
    if (c) send(c, { t: 'removed', id });
    this.changed();
    return { removed: id };
  }

  /** Tells the pages the routes as they are now (added, removed, up or down). */
  private changed(): void {
    this.peers?.publish(listRoutes(this.table));
    this.options.changed?.(this.list());
  }

  /** Takes an upgraded socket of `caller` (headless team-requests.ts checked token and role). */
  accept(socket: Duplex, caller: Caller, head: Buffer): void {
    const c: Connection = {
      id: randomUUID(),
      caller,
      socket,
      name: null,
      forwardTo: null,
      pending: new Map(),
      nextId: 1,
      lastSeen: Date.now(),
      timer: null,
    };
    this.connections.set(c.id, c);
    const read = frameReader(
      LaptopFrame,
      (f) => this.received(c, f),
      (why) => this.drop(c, `the laptop sent ${why}`),
    );
    socket.on('data', (d: Buffer) => {
      c.lastSeen = Date.now();
      read(d);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.closed(c));
    c.timer = setInterval(() => this.tick(c), PING_MS);
    c.timer.unref();
    const hello = setTimeout(() => {
      if (c.name === null) this.drop(c, `no hello within ${HELLO_MS / 1000} s`);
    }, HELLO_MS);
    hello.unref();
    if (head.length > 0) read(head);
  }

  private tick(c: Connection): void {
    if (Date.now() - c.lastSeen > SILENT_MS) return this.drop(c, `silent for ${SILENT_MS / 1000} s`);
    send(c, { t: 'ping' });
  }

  private received(c: Connection, f: LaptopFrame): void {
    if (f.t === 'pong') return;
    if (f.t === 'hello') return void this.hello(c, f);
    if (c.name === null) return this.drop(c, 'a frame before hello');
    if (f.t === 'add') return void this.add(c, f.ref, f.route);
    const p = c.pending.get(f.id);
    // An id never asked, or given up on (late): dropped.
    if (!p) return;
    c.pending.delete(f.id);
    clearTimeout(p.timer);
    if (f.t === 'refused') {
      this.missed(p, 'down', `${who(p.route)} refused: ${f.why}`);
      return p.resolve({ answered: false });
    }
    const body = Buffer.from(f.body_b64, 'base64');
    p.resolve({
      answered: true,
      url: `${p.route.forward_to ?? c.forwardTo ?? ''}${p.request.path}`,
      result: {
        ok: true,
        status: f.status,
        headers: f.headers,
        body,
        truncated: f.truncated,
        durationMs: Math.round((performance.now() - p.started) * 100) / 100,
        connectMs: null,
      },
    });
  }

  private async hello(c: Connection, f: Extract<LaptopFrame, { t: 'hello' }>): Promise<void> {
    if (c.name !== null) return this.drop(c, 'a second hello');
    c.name = f.name;
    c.forwardTo = f.forward_to;
    const routes: RouteInfo[] = [];
    for (const r of f.routes) {
      const added = await this.register(c, r);
      if (added.route) routes.push(added.route);
      else return this.drop(c, added.error?.message ?? 'a route the hub refuses');
    }
    send(c, { t: 'welcome', attach: c.id, routes });
    this.changed();
    this.options.log?.(`${c.caller.member} attached from ${f.name} with ${routes.length} route(s)`);
  }

  private async add(c: Connection, ref: number, request: RouteRequest): Promise<void> {
    const added = await this.register(c, request);
    send(c, { t: 'added', ref, route: added.route, error: added.error });
    if (added.route) this.changed();
  }

  /** A route for the connection's member, audited as theirs (team.addRoute). */
  private async register(
    c: Connection,
    request: RouteRequest,
  ): Promise<{ route: RouteInfo | null; error: { code: string; message: string } | null }> {
    const owner = {
      member: c.caller.member,
      attach: c.name ?? '?',
      forward_to: c.forwardTo,
      connection: c.id,
    };
    try {
      const r = addRoute(this.table, owner, request);
      await this.options.audit?.(c.caller, 'team.addRoute', request, null);
      return { route: listRoutes(this.table).find((x) => x.id === r.id) ?? null, error: null };
    } catch (err) {
      const e = toErrorData(err);
      await this.options.audit?.(c.caller, 'team.addRoute', request, e.code);
      return { route: null, error: { code: e.code, message: e.message } };
    }
  }

  private drop(c: Connection, why: string): void {
    send(c, { t: 'bye', why });
    this.options.log?.(`relay of ${c.caller.member} (${c.name ?? 'no hello'}) dropped: ${why}`);
    c.socket.end();
    c.socket.destroy();
    this.closed(c);
  }

  private closed(c: Connection): void {
    if (!this.connections.delete(c.id)) return;
    if (c.timer) clearInterval(c.timer);
    if (connectionLost(this.table, c.id) > 0) this.changed();
    for (const [id, p] of c.pending) {
      c.pending.delete(id);
      clearTimeout(p.timer);
      this.missed(p, 'down', `${who(p.route)} went away (its connection to the hub closed)`);
      p.resolve({ answered: false });
    }
  }

  /**
   * Offers a request to the routes (core/bank relayed.ts): null when none claims it; else the
   * laptop's answer, or `{answered: false}` by the deadline with the reason recorded.
   */
  relay(request: RelayRequest): Promise<RelayOutcome> | null {
    const route = claimingRoute(this.table, request.claims, Date.now(), this.peers?.routes() ?? []);
    if (!route) return null;
    if ('peer' in route && this.peers) return this.viaPeer(this.peers, route as PeerRoute, request);
    return this.through(route, request);
  }

  /**
   * Relays a request another hub handed over for this hub's route `id` (route-share-pg.ts), as
   * if it had arrived here; null when this hub holds no such route now.
   */
  relayOwn(id: string, request: RelayRequest): Promise<RelayOutcome> | null {
    const route = this.table.routes.get(id);
    return route ? this.through(route, request) : null;
  }

  /** Hands a request to the hub of `route`; what that hub's laptop missed, that hub records. */
  private viaPeer(peers: RoutePeers, route: PeerRoute, request: RelayRequest): Promise<RelayOutcome> {
    const started = performance.now();
    const missed = (why: 'down' | 'late', words: string) =>
      this.missed({ route, request, started }, why, words);
    if (!route.up) {
      missed('down', `${who(route)} is not connected (to hub ${route.peerName})`);
      return Promise.resolve({ answered: false });
    }
    if (request.deadline - started <= 0) {
      missed('late', 'no time was left in the 1 s budget to relay it');
      return Promise.resolve({ answered: false });
    }
    return peers.forward(route, request, missed);
  }

  /** Relays through this hub's own route to its laptop. */
  private through(route: HubRoute, request: RelayRequest): Promise<RelayOutcome> {
    const started = performance.now();
    const missed = (why: 'down' | 'late', words: string) => {
      this.missed({ route, request, started }, why, words);
      return Promise.resolve<RelayOutcome>({ answered: false });
    };
    const c = route.connection ? this.connections.get(route.connection) : undefined;
    if (!c) return missed('down', `${who(route)} is not connected`);
    if (c.pending.size >= MAX_IN_FLIGHT)
      return missed('down', `${who(route)} has ${MAX_IN_FLIGHT} requests in flight already`);
    const budget = Math.floor(request.deadline - started);
    if (budget <= 0) return missed('late', 'no time was left in the 1 s budget to relay it');
    const id = c.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        c.pending.delete(id);
        this.missed(p, 'late', `${who(route)} did not answer within ${budget} ms`);
        resolve({ answered: false });
      }, budget);
      const p: Pending = { resolve, timer, route, request, started };
      c.pending.set(id, p);
      const { method, path, headers, body } = request;
      send(c, { t: 'relay', id, method, path, headers, body, budget_ms: budget });
    });
  }

  /** Records `route.down` or `route.late` (one per route a second; the rest counted). */
  private missed(
    p: Pick<Pending, 'route' | 'request' | 'started'>,
    why: 'down' | 'late',
    words: string,
  ): void {
    const record = this.options.record;
    if (!record) return;
    const now = Date.now();
    const gate = this.eventGate.get(p.route.id);
    if (gate && now - gate.at < 1000) {
      gate.held++;
      return;
    }
    this.eventGate.set(p.route.id, { at: now, held: 0 });
    if (this.eventGate.size > 1000) this.eventGate.clear();
    const { route, request } = p;
    const event = blankEvent('route', new Date(now).toISOString());
    event.path = `route.${why}`;
    event.method = request.method;
    event.obj = request.claims?.obj ?? null;
    event.sub = request.claims?.sub ?? null;
    event.duration_ms = Math.round((performance.now() - p.started) * 100) / 100;
    event.warning = `${words}; the hub answered ${request.path} itself`;
    event.data = {
      route: route.id,
      member: route.member,
      field: route.field,
      glob: route.glob,
      attach: route.attach,
      forward_to: route.forward_to,
      request_path: request.path,
      kind: request.kind,
      held_back: gate?.held ?? 0,
    };
    record(event);
  }

  /** Ends every connection (the hub stops). */
  close(): void {
    for (const c of [...this.connections.values()]) this.drop(c, 'the hub is stopping');
  }
}

function who(route: HubRoute): string {
  return `${route.member}'s laptop (${route.attach})`;
}

function send(c: Connection, frame: HubFrame): void {
  if (!c.socket.destroyed && c.socket.writable) c.socket.write(frameLine(frame));
}

/** team.addRoute on a hub's own page: a route needs a laptop's connection. */
export function noLaptop(): ConsoleError {
  return new ConsoleError(
    'BAD_ARGUMENT',
    'a route sends requests to an attached laptop: add it from the page that `dets-console attach --forward-to URL` serves, or with attach --route',
    { field: 'glob' },
  );
}
