/**
 * The browser-mode event stream client (renderer/api/event-stream.ts) against a real loopback
 * HTTP server that plays the host's part of `GET /api/events`: the token goes in the header
 * (never the URL), messages arrive however the bytes are cut, and each way a stream can end
 * (dropped, refused, 401, closed by the page) leads where the connection indicator expects.
 * Timers are captured, so every reconnection is stepped by hand, never waited for.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEventStream, eventsUrl, type EventStream } from '../../../renderer/api/event-stream';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
/** One handler per request, in order; requests beyond the script get 503. */
let script: Handler[] = [];
let seen: IncomingMessage[] = [];
let open: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    open.push(res);
    res.on('close', () => (open = open.filter((r) => r !== res)));
    const next = script.shift();
    if (next) next(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  script = [];
  seen = [];
});

const streamHead: Handler = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
  res.write('retry: 2000\n: connected\n\n');
};

function setup(onUnauthorized: (m: string) => void = () => undefined) {
  const timers: Array<{ fn: () => void; ms: number }> = [];
  const statuses: string[] = [];
  const stream = createEventStream({
    url: eventsUrl(baseUrl),
    token: 'tok-123',
    onUnauthorized,
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => undefined,
  });
  stream.subscribe(() => statuses.push(stream.getSnapshot().status));
  return { stream, timers, statuses };
}

/** Resolves once `check` holds; the stream works on real sockets, so this polls briefly. */
async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const status = (s: EventStream) => s.getSnapshot().status;

describe('event stream over fetch', () => {
  it('asks for /api/events with the token in X-DETS-Token, never in the URL, and reports connected', async () => {
    script = [streamHead];
    const { stream } = setup();
    expect(status(stream)).toBe('connecting');
    await until(() => status(stream) === 'connected', 'connected');
    const [req] = seen;
    expect(req!.url).toBe('/api/events');
    expect(req!.headers['x-dets-token']).toBe('tok-123');
    expect(req!.headers.accept).toBe('text/event-stream');
    expect(req!.headers.cookie).toBeUndefined();
    expect(eventsUrl('http://127.0.0.1:7300')).toBe('http://127.0.0.1:7300/api/events');
    stream.close();
  });

  it('fans named events out as parsed JSON, cut anywhere, dropping malformed and unknown ones', async () => {
    const notice = { at: '2025-01-01T00:00:00Z', level: 'info', message: 'hi' };
    const body =
      `event: app.noticed\ndata: ${JSON.stringify(notice)}\n\n` +
      'event: app.noticed\ndata: {not json\n\n' +
      'event: no.such.event\ndata: {}\n\n' +
      `event: app.noticed\r\ndata: ${JSON.stringify({ ...notice, message: 'crlf' })}\r\n\r\n`;
    script = [
      (req, res) => {
        streamHead(req, res);
        // Seven bytes at a time, each its own write: messages arrive cut mid-line.
        for (let i = 0; i < body.length; i += 7) res.write(body.slice(i, i + 7));
      },
    ];
    const { stream } = setup();
    const got: unknown[] = [];
    stream.on('app.noticed', (p) => got.push(p));
    await until(() => got.length === 2, 'two notices');
    expect(got).toEqual([notice, { ...notice, message: 'crlf' }]);
    stream.close();
  });

  it('after a drop shows reconnecting and reopens after the host’s retry interval', async () => {
    script = [(req, res) => (streamHead(req, res), res.end()), streamHead];
    const { stream, timers, statuses } = setup();
    await until(() => timers.length === 1, 'a reconnection timer');
    expect(stream.getSnapshot()).toMatchObject({ status: 'reconnecting', attempts: 1 });
    expect(timers[0]!.ms).toBe(2000);
    timers[0]!.fn();
    await until(() => status(stream) === 'connected', 'connected again');
    expect(stream.getSnapshot().attempts).toBe(0);
    expect(seen.map((r) => r.headers['x-dets-token'])).toEqual(['tok-123', 'tok-123']);
    expect(statuses).toEqual(['connected', 'reconnecting', 'reconnecting', 'connected']);
    stream.close();
  });

  it('reopens a refused stream itself with a growing backoff, then recovers', async () => {
    const refuse: Handler = (_req, res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('down');
    const htmlPage: Handler = (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>proxy</p>');
    script = [refuse, htmlPage, streamHead];
    const unauthorized: string[] = [];
    const { stream, timers } = setup((m) => unauthorized.push(m));
    await until(() => timers.length === 1, 'the first backoff');
    expect(stream.getSnapshot()).toMatchObject({ status: 'disconnected', attempts: 1 });
    timers[0]!.fn();
    await until(() => timers.length === 2, 'the second backoff');
    expect(timers[1]!.ms).toBeGreaterThan(timers[0]!.ms);
    timers[1]!.fn();
    await until(() => status(stream) === 'connected', 'connected');
    expect(stream.getSnapshot().attempts).toBe(0);
    expect(unauthorized).toEqual([]);
    stream.close();
  });

  it('stops for good on 401 and reports the host’s reason', async () => {
    script = [
      (_req, res) =>
        res
          .writeHead(401, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ ok: false, error: { code: 'UNAUTHORIZED', message: 'wrong token' } })),
    ];
    const unauthorized: string[] = [];
    const { stream, timers } = setup((m) => unauthorized.push(m));
    await until(() => unauthorized.length === 1, 'the 401 report');
    expect(unauthorized).toEqual(['wrong token']);
    expect(status(stream)).toBe('disconnected');
    await new Promise((r) => setTimeout(r, 50));
    expect(timers).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('retries an unreachable host', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const stream = createEventStream({
      url: eventsUrl(`http://127.0.0.1:${port}`),
      token: 't',
      setTimer: (fn, ms) => timers.push({ fn, ms }),
      clearTimer: () => undefined,
    });
    await until(() => timers.length === 1, 'a retry timer');
    expect(stream.getSnapshot()).toMatchObject({ status: 'reconnecting', attempts: 1 });
    stream.close();
  });

  it('close() ends the open request and everything after it', async () => {
    script = [streamHead];
    const { stream, timers } = setup();
    await until(() => status(stream) === 'connected', 'connected');
    await until(() => open.length === 1, 'the server side of the stream');
    stream.close();
    expect(status(stream)).toBe('disconnected');
    await until(() => open.length === 0, 'the server to see the stream close');
    expect(timers).toEqual([]);
  });
});
