/**
 * A recording HTTP server on 127.0.0.1:0 for tests that need a peer (a bank, a service):
 * `respond` answers each request once its body has arrived; every request is kept in
 * `received`. close() is idempotent and cuts open connections.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeServer {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

export async function startFakeServer(
  respond: (req: Received, res: http.ServerResponse) => void | Promise<void>,
): Promise<FakeServer> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      received.push(r);
      Promise.resolve(respond(r, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  const close = () =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      closed = true;
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, port, received, close };
}
