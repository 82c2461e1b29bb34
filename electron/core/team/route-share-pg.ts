/**
 * Routes across hubs on one PostgreSQL database (issue 30; DESIGN.md "Team hub": several hubs
 * serve one registered URL; docs/team-hub.md "Routes"). A laptop attaches to one hub, but the
 * load balancer sends its callbacks to any of them, so:
 *
 * - each hub publishes its own routes (the list its RelayHub lists) to `team_routes` and
 *   NOTIFYs {@link PG_ROUTES_CHANNEL}; every hub reads the others' on start, on each NOTIFY and
 *   on each heartbeat, and claims with them by the one rule (route-table.ts);
 * - a request another hub's route claims is handed to that hub on {@link PG_RELAY_CHANNEL}
 *   (route-share-payload.ts), which relays it to its laptop with what is left of the wait and
 *   replies the same way; no reply by the deadline: this hub answers itself (`route.late`);
 * - a hub that stops cleanly deletes its row; a killed one is noticed by the next heartbeat of
 *   another hub (its listening session gone from pg_stat_activity: PostgreSQL ends it when the
 *   socket closes) or, its host unreachable, when its beat is {@link STALE_MS} old; its routes
 *   then leave every list and the requests they claimed are answered by the hub that got them.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { z } from 'zod';
import { RouteGlob, RouteInfo } from '../../contract/schemas/team';
import type { RelayOutcome, RelayRequest } from '../bank';
import { migratePgSchema, PG_RELAY_CHANNEL, PG_ROUTES_CHANNEL, PgListener } from '../store';
import type { PeerRoute, RelayHub, RoutePeers } from './relay-hub';
import { MAX_ROUTES } from './route-table';
import {
  askPayload,
  outcomeOf,
  readRelayPayload,
  refusalPayload,
  removalPayload,
  replyPayload,
  type RelayAsk,
} from './route-share-payload';

/** How often a hub renews its beat and looks for hubs gone. */
export const BEAT_MS = 2_000;
/** A hub whose beat is older than this is taken for dead (its host unreachable). */
export const STALE_MS = 30_000;
/** Kept back from the wait a hub hands on, for its reply to cross back in time. */
const CROSSING_MS = 25;
/** The database's clock in ms: beats compared on one clock, whatever the hubs' hosts say. */
const DB_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Another hub's row, checked as a laptop's routes are (its globs by the one glob rule). */
const PublishedRoutes = z.array(RouteInfo.extend({ glob: RouteGlob })).max(MAX_ROUTES);

interface Peer {
  name: string;
  routes: PeerRoute[];
  /** When (this host's Date.now()) its last beat was made. */
  beatAt: number;
}

interface Waiting {
  resolve: (o: RelayOutcome) => void;
  missed: (why: 'down' | 'late', words: string) => void;
  timer: NodeJS.Timeout;
  peerName: string;
}

/** This hub's part in the routes of every hub on one database. */
export class PgRouteShare implements RoutePeers {
  readonly name = `${os.hostname()} (pid ${process.pid})`;
  /** This hub's id on the database (the `to` of what the relay channel carries for it). */
  readonly id = randomUUID();
  private readonly listener: PgListener;
  private peers = new Map<string, Peer>();
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private own: RouteInfo[] = [];
  private pid: number | null = null;
  private writing: Promise<void> = Promise.resolve();
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;
  private beat: NodeJS.Timeout | null = null;
  /** The other hubs' routes as the pages were last told them (JSON). */
  private told = '[]';
  private stopped = false;

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
    private readonly relay: RelayHub,
    private readonly log: (line: string) => void,
  ) {
    this.listener = new PgListener({
      url,
      channels: [PG_ROUTES_CHANNEL, PG_RELAY_CHANNEL],
      notified: (channel, payload) => this.notified(channel, payload),
      connected: (client) => this.connected(client),
      what: 'routes',
      log,
    });
  }

  /**
   * Joins the hubs on the database at `url` with `relay`'s routes. Rejects when the database
   * cannot be reached.
   *
   * @example
   * const share = await PgRouteShare.open(url, relay, log); … await share.close();
   */
  static async open(url: string, relay: RelayHub, log: (line: string) => void): Promise<PgRouteShare> {
    const pool = new pg.Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => undefined);
    const share = new PgRouteShare(pool, url, relay, log);
    try {
      await migratePgSchema(pool);
      await share.listener.start();
    } catch (err) {
      await share.close();
      throw err;
    }
    relay.join(share);
    share.beat = setInterval(() => void share.heartbeat(), BEAT_MS);
    share.beat.unref();
    return share;
  }

  /** Each (re)connection: its session's pid into the row, the others' routes read again. */
  private async connected(client: pg.Client): Promise<void> {
    const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    this.pid = r.rows[0]?.pid ?? null;
    this.publish(this.own);
    await this.writing;
    await this.reload();
  }

  routes(): PeerRoute[] {
    const now = Date.now();
    const out: PeerRoute[] = [];
    for (const p of this.peers.values()) if (now - p.beatAt <= STALE_MS) out.push(...p.routes);
    return out;
  }

  publish(routes: RouteInfo[]): void {
    this.own = routes;
    // One write at a time, each of the newest list: rows never go back to an older one.
    this.writing = this.writing.then(() => this.write()).catch((err: unknown) => this.failed('publish', err));
  }

  private async write(): Promise<void> {
    if (this.stopped) return;
    await this.pool.query(
      `WITH up AS (
         INSERT INTO team_routes (hub, name, pid, routes, beat_ms) VALUES ($1, $2, $3, $4, ${DB_NOW})
         ON CONFLICT (hub) DO UPDATE SET name = $2, pid = $3, routes = $4, beat_ms = ${DB_NOW}
         RETURNING hub)
       SELECT pg_notify($5, (SELECT hub FROM up))`,
      [this.id, this.name, this.pid, JSON.stringify(this.own), PG_ROUTES_CHANNEL],
    );
  }

  /** Renews this hub's beat (its row back if another hub took it for dead), removes dead hubs. */
  private async heartbeat(): Promise<void> {
    try {
      const beat = await this.pool.query(
        `UPDATE team_routes SET beat_ms = ${DB_NOW}, pid = $2 WHERE hub = $1`,
        [this.id, this.pid],
      );
      if (beat.rowCount === 0) this.publish(this.own);
      const gone = await this.pool.query<{ name: string }>(
        `DELETE FROM team_routes t WHERE hub <> $1 AND (beat_ms < ${DB_NOW} - $2
           OR (pid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = t.pid)))
         RETURNING name`,
        [this.id, STALE_MS],
      );
      if (gone.rows.length > 0) {
        this.log(`routes: hub ${gone.rows.map((r) => r.name).join(', ')} is gone; its routes are dropped`);
        await this.pool.query('SELECT pg_notify($1, $2)', [PG_ROUTES_CHANNEL, this.id]);
      }
      await this.reload();
    } catch (err) {
      this.failed('heartbeat', err);
    }
  }

  /** Reads the other hubs' routes (once at a time; a request during a read makes one more). */
  private reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.reloadAgain = false;
        await this.readPeers();
      } while (this.reloadAgain && !this.stopped);
    })()
      .catch((err: unknown) => this.failed('reading the routes', err))
      .finally(() => (this.reloading = null));
    return this.reloading;
  }

  private async readPeers(): Promise<void> {
    const r = await this.pool.query<{ hub: string; name: string; routes: string; age: string }>(
      `SELECT hub, name, routes, ${DB_NOW} - beat_ms AS age FROM team_routes WHERE hub <> $1`,
      [this.id],
    );
    const now = Date.now();
    const peers = new Map<string, Peer>();
    for (const row of r.rows) {
      const routes = parsePublished(row.routes);
      // A row this console cannot read (broken, or a newer console's): that hub's routes unknown.
      if (!routes) continue;
      const peer = (r: RouteInfo, order: number): PeerRoute => ({
        ...r,
        hub: undefined,
        order,
        connection: null,
        downSince: null,
        peer: row.hub,
        peerName: row.name,
      });
      peers.set(row.hub, { name: row.name, routes: routes.map(peer), beatAt: now - Number(row.age) });
    }
    this.peers = peers;
    // Compared with what the pages were last told (a hub gone stale since is a change too).
    const told = JSON.stringify(this.routes());
    if (told !== this.told) {
      this.told = told;
      this.relay.peersChanged();
    }
  }

  forward(
    route: PeerRoute,
    request: RelayRequest,
    missed: (why: 'down' | 'late', words: string) => void,
  ): Promise<RelayOutcome> {
    const id = this.nextId++;
    const made = askPayload(
      { to: route.peer, from: this.id, id, route: route.id },
      request,
      performance.now(),
    );
    if ('refused' in made) {
      missed('down', `${made.refused}: too large to hand to hub ${route.peerName}`);
      return Promise.resolve({ answered: false });
    }
    const budget = Math.max(1, Math.floor(request.deadline - performance.now()));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        missed('late', `hub ${route.peerName} did not answer for the laptop within ${budget} ms`);
        resolve({ answered: false });
      }, budget);
      this.waiting.set(id, { resolve, missed, timer, peerName: route.peerName });
      this.pool.query('SELECT pg_notify($1, $2)', [PG_RELAY_CHANNEL, made.payload]).catch((err: unknown) => {
        const w = this.settle(id);
        w?.missed('down', `hub ${route.peerName} could not be asked through PostgreSQL (${messageOf(err)})`);
        w?.resolve({ answered: false });
      });
    });
  }

  private settle(id: number): Waiting | undefined {
    const w = this.waiting.get(id);
    if (!w) return undefined;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    return w;
  }

  private notified(channel: string, payload: string): void {
    if (this.stopped) return;
    if (channel === PG_ROUTES_CHANNEL) {
      if (payload !== this.id) void this.reload();
      return;
    }
    const message = readRelayPayload(payload, this.id);
    if (message?.kind === 'ask') return void this.asked(message.ask);
    if (message?.kind === 'remove') return this.removeOwn(message.removal.remove);
    if (message?.kind !== 'reply') return;
    const w = this.settle(message.reply.id);
    if (!w) return; // given up already (late), or never asked: dropped
    const why = message.reply.outcome.answered ? null : message.reply.outcome.why;
    if (why !== null) w.missed('down', `hub ${w.peerName} could not relay it: ${why}`);
    w.resolve(outcomeOf(message.reply));
  }

  remove(route: PeerRoute): void {
    const peer = this.peers.get(route.peer);
    if (peer) peer.routes = peer.routes.filter((r) => r.id !== route.id);
    const payload = removalPayload({ to: route.peer, from: this.id, remove: route.id });
    this.pool
      .query('SELECT pg_notify($1, $2)', [PG_RELAY_CHANNEL, payload])
      .catch((err: unknown) => this.failed('asking for a removal', err));
  }

  /** Another hub's page removed one of this hub's routes (its laptop told, the list published). */
  private removeOwn(id: string): void {
    try {
      this.relay.remove(id);
    } catch {
      // Gone already (removed here, or expired): nothing to do.
    }
  }

  /** Another hub handed over a request for one of this hub's routes: relayed as if it came here. */
  private async asked(ask: RelayAsk): Promise<void> {
    const request: RelayRequest = {
      ...ask.request,
      deadline: performance.now() + ask.deadline_ms - CROSSING_MS,
    };
    const relayed = this.relay.relayOwn(ask.route, request);
    const payload = relayed
      ? replyPayload(ask.from, ask.id, await relayed)
      : refusalPayload(ask.from, ask.id, `route ${ask.route} is no longer held there`);
    await this.pool
      .query('SELECT pg_notify($1, $2)', [PG_RELAY_CHANNEL, payload])
      .catch((err: unknown) => this.failed('replying', err));
  }

  private failed(what: string, err: unknown): void {
    if (!this.stopped) this.log(`routes: ${what} through PostgreSQL failed: ${messageOf(err)}`);
  }

  /** Leaves: this hub's row deleted (the others drop its routes at once), waiting requests let go. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.beat) clearInterval(this.beat);
    for (const id of [...this.waiting.keys()]) this.settle(id)?.resolve({ answered: false });
    await this.writing;
    await this.pool
      .query(
        `WITH gone AS (DELETE FROM team_routes WHERE hub = $1 RETURNING hub) SELECT pg_notify($2, $1) FROM gone`,
        [this.id, PG_ROUTES_CHANNEL],
      )
      .catch(() => undefined);
    await this.listener.stop();
    await this.pool.end().catch(() => undefined);
  }
}

function parsePublished(text: string): RouteInfo[] | null {
  try {
    const parsed = PublishedRoutes.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
