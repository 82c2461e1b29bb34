/**
 * The listeners' turn batching (listener.ts turnBatched): the requests node parses in one turn
 * are handled together after it, in arrival order; a handler that throws answers 500 and leaves
 * the turn's other requests alone. Real node:http servers on 127.0.0.1, real sockets.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, turnBatched, type RunningServer } from '../../../electron/core/http/listener';

const servers: http.Server[] = [];
const running: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const s of running.splice(0)) await s.close();
});

/** Sends `raw` in one write on one connection; resolves with everything read until `count` answers came. */
async function exchangeRaw(port: number, raw: string, count: number): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let text = '';
  socket.setEncoding('utf8');
  const done = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk: string) => {
      text += chunk;
      if ((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= count && text.endsWith(lastBodyEnd))
        resolve(text);
    });
    socket.once('error', reject);
    setTimeout(() => reject(new Error(`no ${count} answers within 5 s; read: ${text}`)), 5_000).unref();
  });
  socket.write(raw);
  try {
    return await done;
  } finally {
    socket.destroy();
  }
}
/** Every test's last body ends with this, so a read can tell it has every answer. */
const lastBodyEnd = '.';

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

describe('turnBatched', () => {
  it('handles the requests one turn parsed after that turn, in the order they arrived', async () => {
    let parsed = 0;
    const seenWhenHandled: number[] = [];
    const server = http.createServer();
    // Registered first: counts each request as node parses it, before the batched handler.
    server.on('request', () => parsed++);
    server.on(
      'request',
      turnBatched((req: IncomingMessage, res: ServerResponse) => {
        seenWhenHandled.push(parsed);
        const body = `${req.url}.`;
        res.writeHead(200, { 'Content-Length': String(body.length) });
        res.end(body);
      }),
    );
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;

    // Three pipelined requests in one write: node parses them in one turn.
    const text = await exchangeRaw(port, get('/a') + get('/b') + get('/c'), 3);
    const bodies = text
      .split('\r\n\r\n')
      .slice(1)
      .map((s) => s.split('HTTP/1.1')[0]);
    expect(bodies).toEqual(['/a.', '/b.', '/c.']);
    // Each handled after all three were parsed (answered one by one, it would be 1, 2, 3).
    expect(seenWhenHandled).toEqual([3, 3, 3]);
  });

  it('answers 500 for a handler that throws, and still handles the rest of the turn', async () => {
    const s = await startServer(
      (req, res) => {
        if (req.url === '/throw') throw new Error('boom');
        res.writeHead(200, { 'Content-Length': '3' });
        res.end('ok.');
      },
      { host: '127.0.0.1', port: 0 },
    );
    running.push(s);
    const text = await exchangeRaw(s.port, get('/throw') + get('/fine'), 2);
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    expect(statuses).toEqual(['500', '200']);
    expect(text).toContain('"error":"internal","detail":"the request handler failed: boom"');
    expect(text.endsWith('ok.')).toBe(true);
  });

  it('answers a lone request on an idle listener at once, through startServer', async () => {
    const s = await startServer(
      (_req, res) => {
        res.writeHead(200, { 'Content-Length': '5' });
        res.end('hello');
      },
      { host: '127.0.0.1', port: 0 },
    );
    running.push(s);
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
  });
});
