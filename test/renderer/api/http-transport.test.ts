// @vitest-environment jsdom
/**
 * The browser-mode transport against a real loopback HTTP server standing in for the headless
 * host's wire protocol (electron/contract/transport.ts): what goes out on the wire, and how each
 * kind of answer comes back through the facade.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract';
import { browserClient } from '../../../renderer/api/client';
import { createHttpTransport } from '../../../renderer/api/http-transport';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let answer: (req: Seen, res: ServerResponse) => void;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  refusals = [];
  answer = (_req, res) => json(res, 200, { ok: true, value: { echoed: true } });
});

let refusals: string[] = [];
const client = () =>
  browserClient({ baseUrl, token: 'tok-123', liveEvents: false, onUnauthorized: (m) => refusals.push(m) });

describe('HTTP transport', () => {
  it('POSTs the JSON argument to /api/call/<method> with the token header', async () => {
    const value = await client().api.inspector.inspect({ token: 'a.b.c', expectedObj: 'DE89' });
    expect(value).toEqual({ echoed: true });
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/api/call/inspector.inspect');
    expect(req!.headers['x-dets-token']).toBe('tok-123');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({ token: 'a.b.c', expectedObj: 'DE89' });
  });

  it('sends an empty body for a method called without argument', async () => {
    await client().api.app.info();
    expect(seen[0]!.url).toBe('/api/call/app.info');
    expect(seen[0]!.body).toBe('');
  });

  it('turns an ok:false envelope into a ConsoleError with its code and message', async () => {
    answer = (_req, res) =>
      json(res, 200, { ok: false, error: { code: 'TOKEN_MALFORMED', message: 'not three segments' } });
    const err = await client()
      .api.inspector.inspect({ token: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConsoleError);
    expect((err as ConsoleError).code).toBe('TOKEN_MALFORMED');
    expect((err as ConsoleError).message).toBe('not three segments');
  });

  it('reports a stale token on the host’s 401 only, never on the core’s own UNAUTHORIZED answer', async () => {
    // 401: refused before the core. 200: the sandbox refusing a bank's token in sandbox.signIn,
    // an answer like any other, which must not send the page to the access-link help.
    for (const [status, message, reported] of [
      [401, 'missing or wrong access token', ['missing or wrong access token']],
      [200, 'signature: signed by another key', []],
    ] as const) {
      refusals = [];
      answer = (_req, res) => json(res, status, { ok: false, error: { code: 'UNAUTHORIZED', message } });
      const err = (await client()
        .api.app.info()
        .catch((e: unknown) => e)) as ConsoleError;
      expect(err.code).toBe('UNAUTHORIZED');
      expect(err.message).toBe(message);
      expect(refusals).toEqual(reported);
    }
  });

  it('sends no cookie and asks fetch to omit credentials', async () => {
    const inits: RequestInit[] = [];
    const spying: typeof fetch = (input, init) => {
      inits.push(init ?? {});
      return fetch(input, init);
    };
    await browserClient({ baseUrl, token: 'tok-123', liveEvents: false, fetch: spying }).api.app.info();
    expect(inits.map((i) => i.credentials)).toEqual(['omit']);
    expect(seen[0]!.headers.cookie).toBeUndefined();
  });

  it('maps a non-envelope answer to a coded error naming the status', async () => {
    answer = (_req, res) => {
      res.writeHead(403, { 'Content-Type': 'text/html' });
      res.end('<h1>nope</h1>');
    };
    const err = (await client()
      .api.app.info()
      .catch((e: unknown) => e)) as ConsoleError;
    expect(err).toBeInstanceOf(ConsoleError);
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('HTTP 403');
  });

  it('reports an unreachable host as a ConsoleError, not a TypeError', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const transport = createHttpTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 't',
      liveEvents: false,
    });
    const envelope = await transport.call('app.info', undefined);
    expect(envelope.ok).toBe(false);
    if (!envelope.ok) {
      expect(envelope.error.code).toBe('INTERNAL');
      expect(envelope.error.message).toContain('dets-console serve');
    }
  });
});

describe('one-time downloads', () => {
  const transport = () =>
    createHttpTransport({
      baseUrl,
      token: 'tok-123',
      liveEvents: false,
      onUnauthorized: (m) => refusals.push(m),
    });

  it('fetches /api/download/<ticket> with the token header and hands back the bytes as a Blob', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Disposition': 'attachment' });
      res.end('[{"key":"k"}]');
    };
    const blob = await transport().download('/api/download/ticket-1');
    expect(await blob.text()).toBe('[{"key":"k"}]');
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.url).toBe('/api/download/ticket-1');
    expect(seen[0]!.headers['x-dets-token']).toBe('tok-123');
    expect(seen[0]!.headers.cookie).toBeUndefined();
  });

  it('says a spent ticket is gone (404) and reports a refused token (401)', async () => {
    answer = (_req, res) =>
      json(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: 'no such download' } });
    await expect(transport().download('/api/download/spent')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(refusals).toEqual([]);
    answer = (_req, res) => json(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'stale' } });
    await expect(transport().download('/api/download/t')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'stale',
    });
    expect(refusals).toEqual(['stale']);
  });
});
