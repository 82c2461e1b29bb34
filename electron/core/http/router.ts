/**
 * Method + path routing for the core's node:http listeners (the sandbox's, the bank's). Patterns
 * are literal segments and `:name` parameters; the most specific pattern that matches a path
 * decides (so `.../jwk/authenticate` is never read as a jwk_guid), an unknown path is 404 and a
 * known path with another method is 405 with `Allow`.
 *
 * {@link RouteTable} only matches (the bank answers 404 and 405 in its own words and records
 * them, bank/routes.ts); {@link Router} is a whole JSON handler over it (the sandbox): whatever a
 * route throws becomes the caller's error reply, so nothing a client sends can crash the server.
 *
 * Hot path: a path without parameters is found in a map and answered with a match made once,
 * so routing a callback allocates nothing but the path string.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardBody, readJsonBody } from './body';
import { HttpError } from './http-error';
import { type Reply, sendReply } from './reply';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What every route has: a method and a path pattern. */
export interface RoutePattern {
  method: Method;
  /** e.g. `/api/v1/counterparty/:counterparty_guid/jwk/:jwk_guid` */
  path: string;
}

/** What {@link RouteTable.match} found for a request. */
export type RouteMatch<R> =
  | { kind: 'found'; route: R; params: Readonly<Record<string, string>> }
  | { kind: 'not_found' }
  /** The path is known, with other methods: `allow` is their list for the `Allow` header. */
  | { kind: 'method_not_allowed'; allow: string; routes: readonly R[] };

interface Compiled<R> {
  route: R;
  segments: string[];
  /** Literal segments count: the higher, the more specific. */
  literals: number;
  /** For a pattern without parameters: its match, made once. */
  found: RouteMatch<R> | null;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
const NOT_FOUND = Object.freeze({ kind: 'not_found' as const });

/**
 * A table of routes, matched by method and path.
 *
 * @example
 * const table = new RouteTable([{ method: 'GET', path: '/key' }, { method: 'GET', path: '/jwk/:guid' }]);
 * table.match('GET', '/jwk/abc'); // { kind: 'found', route: …, params: { guid: 'abc' } }
 * table.match('POST', '/key');    // { kind: 'method_not_allowed', allow: 'GET', … }
 */
export class RouteTable<R extends RoutePattern> {
  private readonly patterns: Compiled<R>[] = [];
  /** Patterns without parameters, by path: the most specific for a path they equal. */
  private readonly literal = new Map<string, Compiled<R>[]>();

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const segments = route.path.split('/').slice(1);
      const literals = segments.filter((s) => !s.startsWith(':')).length;
      const c: Compiled<R> = { route, segments, literals, found: null };
      if (literals === segments.length) {
        c.found = Object.freeze({ kind: 'found' as const, route, params: NO_PARAMS });
        const same = this.literal.get(route.path);
        if (same) same.push(c);
        else this.literal.set(route.path, [c]);
      } else {
        this.patterns.push(c);
      }
    }
  }

  /** The route for `method` on `pathname` (no query), or why there is none. */
  match(method: string, pathname: string): RouteMatch<R> {
    const exact = this.literal.get(pathname);
    if (exact) return pick(exact, method, null);
    const parts = pathname.split('/').slice(1);
    const best = this.mostSpecific(parts);
    return best.length > 0 ? pick(best, method, parts) : NOT_FOUND;
  }

  /** The parameterised patterns of the most literal segments that match `parts`. */
  private mostSpecific(parts: string[]): Compiled<R>[] {
    let best: Compiled<R>[] = [];
    let bestLiterals = -1;
    for (const c of this.patterns) {
      if (c.segments.length !== parts.length || c.literals < bestLiterals) continue;
      if (!c.segments.every((s, i) => s.startsWith(':') || s === parts[i])) continue;
      if (c.literals > bestLiterals) {
        best = [c];
        bestLiterals = c.literals;
      } else {
        best.push(c);
      }
    }
    return best;
  }
}

function pick<R extends RoutePattern>(
  candidates: Compiled<R>[],
  method: string,
  parts: string[] | null,
): RouteMatch<R> {
  const c = candidates.find((x) => x.route.method === method);
  if (!c) {
    const allow = [...new Set(candidates.map((x) => x.route.method))].join(', ');
    return { kind: 'method_not_allowed', allow, routes: candidates.map((x) => x.route) };
  }
  return c.found ?? { kind: 'found', route: c.route, params: extractParams(c.segments, parts ?? []) };
}

function extractParams(segments: string[], parts: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  segments.forEach((s, i) => {
    if (!s.startsWith(':')) return;
    const raw = parts[i] ?? '';
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Malformed %-escapes: the raw text goes to the route, whose validation names it.
    }
    params[s.slice(1)] = value;
  });
  return params;
}

/** What a {@link Router} route runs with. */
export interface RouteContext {
  req: IncomingMessage;
  params: Readonly<Record<string, string>>;
  /** The parsed JSON body for routes that take one, else undefined. */
  body: unknown;
  /** The query string's parameters. */
  query: URLSearchParams;
}

/** A route of a JSON {@link Router}. */
export interface Route extends RoutePattern {
  /** `json`: the route reads a JSON body (415/413/400 checked before it runs). */
  body: 'json' | 'none';
  run(ctx: RouteContext): Promise<Reply>;
}

export interface RouterOptions {
  /** What the 404 adds after "no such endpoint: METHOD /path; " (where the server's routes are). */
  notFoundHint: string;
  /** The reply for anything a route (or the router: 404, 405, 413…, as HttpErrors) threw. */
  errorReply: (err: unknown) => Reply;
}

/**
 * A node:http handler over a {@link RouteTable} of JSON routes.
 *
 * @example
 * const router = new Router(routes, { notFoundHint: 'the API is under /api/v1', errorReply });
 * http.createServer((req, res) => router.handle(req, res));
 */
export class Router {
  private readonly table: RouteTable<Route>;

  constructor(
    routes: readonly Route[],
    private readonly options: RouterOptions,
  ) {
    this.table = new RouteTable(routes);
  }

  /** The node:http request handler. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.dispatch(req, res).catch((err: unknown) => sendReply(res, this.options.errorReply(err)));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const method = req.method ?? 'GET';
    const found = this.table.match(method, pathname);
    if (found.kind === 'not_found') {
      discardBody(req);
      throw new HttpError(
        404,
        'not_found',
        `no such endpoint: ${method} ${clip(pathname)}; ${this.options.notFoundHint}`,
      );
    }
    if (found.kind === 'method_not_allowed') {
      discardBody(req);
      throw new HttpError(
        405,
        'method_not_allowed',
        `${method} is not allowed on ${clip(pathname)}; allowed: ${found.allow}`,
        { Allow: found.allow },
      );
    }
    let body: unknown;
    if (found.route.body === 'json') body = await readJsonBody(req);
    else discardBody(req);
    const reply = await found.route.run({
      req,
      params: found.params,
      body,
      query: new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1)),
    });
    sendReply(res, reply);
  }
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
