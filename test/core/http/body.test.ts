import { createServer, IncomingMessage, type Server } from 'node:http';
import { Socket, connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from '../../../electron/core/http/body';
import { HttpError } from '../../../electron/core/http/http-error';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A server whose every request's readBody outcome lands in `outcomes`, in order. */
async function serve(limit?: number) {
  const outcomes: Promise<Buffer>[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const p = readBody(req, limit);
    outcomes.push(p);
    p.then(
      (b) => res.end(`read ${b.length}`),
      (err: unknown) => res.end(err instanceof HttpError ? `refused ${err.status}` : 'failed'),
    );
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, outcomes };
}

describe('readBody', () => {
  it('reads a whole body, and the close that follows every request changes nothing', async () => {
    const { port, outcomes } = await serve();
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x'.repeat(1000) });
    expect(await res.text()).toBe('read 1000');
    await new Promise((r) => setTimeout(r, 50)); // the request's 'close' has fired by now
    await expect(outcomes[0]).resolves.toHaveLength(1000);
  });

  it('rejects when the client goes away before the whole body arrived', async () => {
    const { port, outcomes } = await serve();
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789');
    for (let i = 0; i < 100 && outcomes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    socket.destroy();
    // node reports it as an 'aborted' error; without one, the close names it.
    await expect(outcomes[0]).rejects.toThrow(/aborted|the client went away before sending the whole body/);
  });

  it('rejects at once a request whose client went away before its handler ran', async () => {
    // A listener handles a turn's requests after the turn's reads (listener.ts turnBatched): a
    // client that sent a request and left in the same turn is destroyed, its 'close' long past.
    const req = new IncomingMessage(new Socket());
    req.destroy();
    await expect(readBody(req)).rejects.toThrow(/went away before its request was read/);
  });

  it('refuses a declared size over the limit with a 413', async () => {
    const { port } = await serve(10);
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x'.repeat(11) });
    expect(await res.text()).toBe('refused 413');
  });
});
