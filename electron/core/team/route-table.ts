/**
 * A team hub's routes (issue 30 item 3): who routes which obj/sub glob to which attached laptop,
 * since when, up or down; and which route claims a request. Plain state and functions; the relay
 * (relay-hub.ts) holds one table.
 *
 * What a route claims (DESIGN.md "Team hub": "matching callbacks and notifications"):
 * - a callback, by the obj or sub of its proven X-Session-ID: the most specific matching glob
 *   wins, then the oldest route (route-glob.ts compareRoutes);
 * - a notification carries no obj or sub (spec 2.7: a transaction_id only), so only a catch-all
 *   route (`obj=*` or `sub=*`: "everything nobody else claims") claims it, the oldest first.
 *
 * A laptop that goes away keeps its routes, down, for {@link DOWN_KEPT_MS}: a request they claim
 * is answered by the hub (`route.down`), never handed to someone else's laptop; the same member's
 * attach reconnecting with the same routes brings them back up with their first `since`.
 */
import { ConsoleError } from '../../contract';
import type { RouteInfo, RouteRequest } from '../../contract/schemas/team';
import { compareRoutes, globMatches, isCatchAll } from './route-glob';

/** How long the routes of a laptop that went away are kept (down) for it to come back. */
export const DOWN_KEPT_MS = 15 * 60_000;
/** Routes one member may hold, and a hub in all (a team is two to ten engineers). */
export const MAX_ROUTES_PER_MEMBER = 50;
export const MAX_ROUTES = 500;

/** A route as the hub keeps it. */
export interface HubRoute extends RouteInfo {
  /** Registration order (older: smaller), for the tie-break. */
  order: number;
  /** The relay connection serving it now, null while down. */
  connection: string | null;
  /** When it went down (ms since the epoch), null while up. */
  downSince: number | null;
}

/** The table. */
export interface RouteTable {
  routes: Map<string, HubRoute>;
  nextOrder: number;
  /** Ends each route id, so ids stay apart when several hubs share their routes ('' alone). */
  idTag: string;
}

/** An empty table; `idTag` (e.g. `-3fa2c1`) makes its ids unique among hubs sharing a database. */
export function newRouteTable(idTag = ''): RouteTable {
  return { routes: new Map(), nextOrder: 1, idTag };
}

/** Drops routes down for longer than DOWN_KEPT_MS. */
function expire(table: RouteTable, now: number): void {
  for (const [id, r] of table.routes)
    if (r.downSince !== null && now - r.downSince > DOWN_KEPT_MS) table.routes.delete(id);
}

/** The routes as the team sees them, oldest first. */
export function listRoutes(table: RouteTable, now = Date.now()): RouteInfo[] {
  expire(table, now);
  return [...table.routes.values()].sort((a, b) => a.order - b.order).map(routeInfo);
}

/** A route as the team's list shows it (its fields of RouteInfo alone). */
export function routeInfo(r: HubRoute): RouteInfo {
  const { id, member, field, glob, attach, forward_to, since, up } = r;
  return { id, member, field, glob, attach, forward_to, since, up };
}

/** Who registers a route: the member, their laptop's name and backend, and the connection. */
export interface RouteOwner {
  member: string;
  attach: string;
  forward_to: string | null;
  connection: string;
}

/**
 * Registers a route for `owner`'s connection. The same member's same field and glob is the same
 * route: it comes back up on this connection with its first `since` and order (a restarted
 * attach resumes). CONFLICT when the member or the hub holds too many.
 */
export function addRoute(
  table: RouteTable,
  owner: RouteOwner,
  request: RouteRequest,
  now = Date.now(),
): HubRoute {
  expire(table, now);
  for (const r of table.routes.values()) {
    if (r.member === owner.member && r.field === request.field && r.glob === request.glob) {
      Object.assign(r, { attach: owner.attach, forward_to: owner.forward_to });
      Object.assign(r, { connection: owner.connection, up: true, downSince: null });
      return r;
    }
  }
  const mine = [...table.routes.values()].filter((r) => r.member === owner.member).length;
  if (mine >= MAX_ROUTES_PER_MEMBER)
    throw new ConsoleError('CONFLICT', `${owner.member} holds ${mine} routes already: remove one first.`);
  if (table.routes.size >= MAX_ROUTES)
    throw new ConsoleError(
      'CONFLICT',
      `the hub holds ${table.routes.size} routes already: remove some first.`,
    );
  const order = table.nextOrder++;
  const route: HubRoute = {
    id: `r${order}${table.idTag}`,
    member: owner.member,
    field: request.field,
    glob: request.glob,
    attach: owner.attach,
    forward_to: owner.forward_to,
    since: new Date(now).toISOString(),
    up: true,
    order,
    connection: owner.connection,
    downSince: null,
  };
  table.routes.set(route.id, route);
  return route;
}

/** Marks a connection's routes down (the laptop went away); answers how many. */
export function connectionLost(table: RouteTable, connection: string, now = Date.now()): number {
  let n = 0;
  for (const r of table.routes.values()) {
    if (r.connection !== connection) continue;
    Object.assign(r, { connection: null, up: false, downSince: now });
    n++;
  }
  return n;
}

/** Removes a route by id; NOT_FOUND naming it when there is none. */
export function removeRoute(table: RouteTable, id: string): HubRoute {
  const r = table.routes.get(id);
  if (!r) throw new ConsoleError('NOT_FOUND', `No route ${id} (team.routes lists them).`);
  table.routes.delete(id);
  return r;
}

/**
 * The route that claims a request, up or down, or null, among the table's and `others` (the
 * routes of the other hubs on one database: one rule over all of them). `claims` null: a
 * notification (catch-all routes only).
 *
 * @example
 * claimingRoute(table, { obj: 'DE89…', sub: 'alice@bank.example' })?.member; // 'alice'
 */
export function claimingRoute<R extends HubRoute>(
  table: RouteTable,
  claims: { obj: string | null; sub: string | null } | null,
  now = Date.now(),
  others: readonly R[] = [],
): HubRoute | R | null {
  if (table.routes.size === 0 && others.length === 0) return null;
  expire(table, now);
  let best: HubRoute | R | null = null;
  for (const r of [...table.routes.values(), ...others]) {
    const claimed = claims === null ? isCatchAll(r.glob) : matchesClaim(r, claims);
    if (claimed && (best === null || compareRoutes(r, best) < 0)) best = r;
  }
  return best;
}

function matchesClaim(r: HubRoute, claims: { obj: string | null; sub: string | null }): boolean {
  const value = claims[r.field];
  return typeof value === 'string' && globMatches(r.glob, value);
}
