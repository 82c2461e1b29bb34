/**
 * A laptop's end of a real relay connection to an in-process RelayHub (issue 30 item 3): a TCP
 * server on 127.0.0.1 whose accepted socket the hub takes, and the connected client socket the
 * test speaks the relay's frames on. Servers are closed after each test.
 */
import net from 'node:net';
import { afterEach } from 'vitest';
import type { RelayHub } from '../../electron/core/team/relay-hub';

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A hub accepting one real connection of `member` (operator); answers the laptop's end of it. */
export async function connected(hub: RelayHub, member = 'alice'): Promise<net.Socket> {
  const server = net.createServer((socket) =>
    hub.accept(socket, { member, role: 'operator', remote: null }, Buffer.alloc(0)),
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const laptop = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await new Promise<void>((r) => laptop.once('connect', r));
  return laptop;
}
