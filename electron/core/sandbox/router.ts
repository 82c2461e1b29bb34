/**
 * A small method + path router for the sandbox's node:http handler. Patterns are literal
 * segments and `:name` parameters; the most specific pattern that matches a path decides
 * (so `.../jwk/authenticate` is never read as a jwk_guid), an unknown path is 404 and a known
 * path with another method is 405 with `Allow`. Whatever a route throws becomes the sandbox's
 * error body (errors.ts); nothing a client sends can crash the server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWireError } from './errors';
import { discardBody, HttpError, readJsonBody, sendJson } from '../http';

export interface RouteContext {
  req: IncomingMessage;
  params: Record<string, string>;
  /** The parsed JSON body for routes that take one, else undefined. */
  body: unknown;
  /** The query string's parameters. */
  query: URLSearchParams;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** e.g. `/api/v1/counterparty/:counterparty_guid/jwk/:jwk_guid` */
  path: string;
  /** `json`: the route reads a JSON body (415/413/400 checked before it runs). */
  body: 'json' | 'none';
  run(ctx: RouteContext): Promise<Reply>;
}

interface Compiled {
  route: Route;
  segments: string[];
  /** Literal segments count: the higher, the more specific. */
  literals: number;
}

export class Router {
  private readonly routes: Compiled[];

  constructor(routes: Route[]) {
    this.routes = routes.map((route) => {
      const segments = route.path.split('/').slice(1);
      return { route, segments, literals: segments.filter((s) => !s.startsWith(':')).length };
    });
  }

  /** The node:http request handler. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.dispatch(req, res).catch((err: unknown) => {
      const wire = toWireError(err);
      sendJson(res, wire.status, wire.body, wire.headers);
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const method = req.method ?? 'GET';
    const found = this.match(pathname);
    if (!found) {
      discardBody(req);
      throw new HttpError(
        404,
        'not_found',
        `no such endpoint: ${method} ${clip(pathname)}; the sandbox serves the service's endpoints under /api/v1 and its controls under /sandbox/v1`,
      );
    }
    const route = found.candidates.find((c) => c.route.method === method);
    if (!route) {
      discardBody(req);
      const allow = [...new Set(found.candidates.map((c) => c.route.method))].join(', ');
      throw new HttpError(
        405,
        'method_not_allowed',
        `${method} is not allowed on ${clip(pathname)}; allowed: ${allow}`,
        {
          Allow: allow,
        },
      );
    }
    const params = extractParams(route.segments, found.parts);
    let body: unknown;
    if (route.route.body === 'json') body = await readJsonBody(req);
    else discardBody(req);
    const reply = await route.route.run({
      req,
      params,
      body,
      query: new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1)),
    });
    sendJson(res, reply.status, reply.body, reply.headers);
  }

  /** The routes of the most specific pattern matching `pathname`, and the path's segments. */
  private match(pathname: string): { candidates: Compiled[]; parts: string[] } | null {
    const parts = pathname.split('/').slice(1);
    let best: Compiled[] = [];
    let bestLiterals = -1;
    for (const c of this.routes) {
      if (c.segments.length !== parts.length || c.literals < bestLiterals) continue;
      if (!c.segments.every((s, i) => s.startsWith(':') || s === parts[i])) continue;
      if (c.literals > bestLiterals) {
        best = [c];
        bestLiterals = c.literals;
      } else {
        best.push(c);
      }
    }
    return best.length > 0 ? { candidates: best, parts } : null;
  }
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

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
