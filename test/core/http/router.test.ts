import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { errorReply, jsonReply } from '../../../electron/core/http/reply';
import { type Route, Router, RouteTable } from '../../../electron/core/http/router';
import { HttpError } from '../../../electron/core/http/http-error';

describe('RouteTable', () => {
  const table = new RouteTable([
    { method: 'GET', path: '/api/:guid/jwk/:jwk' },
    { method: 'POST', path: '/api/:guid/jwk/authenticate' },
    { method: 'GET', path: '/key' },
    { method: 'DELETE', path: '/key' },
    { method: 'PUT', path: '/api/:guid/jwk/:jwk' },
  ] as const);

  it('a literal segment beats a parameter: authenticate is never read as a jwk guid', () => {
    const m = table.match('POST', '/api/g1/jwk/authenticate');
    expect(m.kind).toBe('found');
    if (m.kind === 'found') expect(m.route.path).toBe('/api/:guid/jwk/authenticate');
    // The more specific path decides the methods too: GET is not taken by the :jwk pattern.
    const get = table.match('GET', '/api/g1/jwk/authenticate');
    expect(get).toMatchObject({ kind: 'method_not_allowed', allow: 'POST' });
  });

  it('gives parameters decoded, and a malformed escape as it came', () => {
    const m = table.match('GET', '/api/a%20b/jwk/%E0%A4%A');
    expect(m).toMatchObject({ kind: 'found', params: { guid: 'a b', jwk: '%E0%A4%A' } });
  });

  it('lists every method of a known path in Allow, each once', () => {
    expect(table.match('POST', '/key')).toMatchObject({ kind: 'method_not_allowed', allow: 'GET, DELETE' });
    expect(table.match('PATCH', '/api/g/jwk/k')).toMatchObject({ allow: 'GET, PUT' });
  });

  it('an unknown path, a longer or shorter one, or a trailing slash is not found', () => {
    for (const p of ['/nope', '/key/', '/key/x', '/api/g/jwk', '/api/g/jwk/k/x', '', '/']) {
      expect(table.match('GET', p).kind, p).toBe('not_found');
    }
  });

  it('a literal path is answered with the same match each time (nothing allocated per request)', () => {
    expect(table.match('GET', '/key')).toBe(table.match('GET', '/key'));
  });
});

describe('Router', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  async function serve(routes: Route[]) {
    const router = new Router(routes, {
      notFoundHint: 'try /echo',
      errorReply: (err) =>
        err instanceof HttpError
          ? errorReply(err.status, err.code, err.message, err.headers)
          : errorReply(500, 'internal', err instanceof Error ? err.message : String(err)),
    });
    const server = createServer((req, res) => router.handle(req, res));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const routes: Route[] = [
    {
      method: 'POST',
      path: '/echo/:name',
      body: 'json',
      run: async ({ params, body, query }) => jsonReply(201, { name: params.name, body, q: query.get('q') }),
    },
    {
      method: 'GET',
      path: '/boom',
      body: 'none',
      run: async () => {
        throw new Error('route failed');
      },
    },
  ];

  it('runs the route with its parameters, JSON body and query', async () => {
    const url = await serve(routes);
    const res = await fetch(`${url}/echo/x?q=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ name: 'x', body: { a: 1 }, q: '1' });
  });

  it('404 names the request and the hint; 405 carries Allow; a throw becomes the error reply', async () => {
    const url = await serve(routes);
    const missing = await fetch(`${url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: 'not_found',
      detail: 'no such endpoint: GET /nope; try /echo',
    });
    const wrong = await fetch(`${url}/echo/x`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    const boom = await fetch(`${url}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: 'internal', detail: 'route failed' });
  });

  it('a malformed JSON body is refused before the route runs', async () => {
    const url = await serve(routes);
    const res = await fetch(`${url}/echo/x`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":',
    });
    expect(res.status).toBe(400);
  });
});
