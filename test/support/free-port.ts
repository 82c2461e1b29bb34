import net, { type AddressInfo } from 'node:net';

/** A 127.0.0.1 port nothing listens on right now (for a URL another process must know in advance). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `fn` with a 127.0.0.1 port that is taken (a server listens on it) until `fn` settles. */
export async function withBusyPort<T>(fn: (port: number) => Promise<T>): Promise<T> {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  try {
    return await fn(port);
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
}
