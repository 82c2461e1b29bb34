/**
 * Is anybody answering on the D-Bus session bus? Asked from the event loop, with a deadline,
 * before any thread enters libdbus.
 *
 * Why: libdbus blocks without a timeout while it authenticates to a bus socket that accepts and
 * never answers (a wedged session; docs/design.md "Secrets"). A worker thread
 * stuck inside that native call cannot be terminated, and Node then cannot exit either (it
 * joins worker threads on exit, even on process.exit()). So the one known hang is detected
 * here, in JavaScript, where a deadline works: connect, send the SASL greeting the bus daemon
 * must answer, and wait for any reply.
 *
 * Only the first address libdbus would use is probed, and only when it is a unix socket
 * (`unix:path=`, `unix:abstract=`, or the systemd user bus at `$XDG_RUNTIME_DIR/bus` when
 * DBUS_SESSION_BUS_ADDRESS is unset). Anything else (no address, tcp, a refused connection) is
 * left to the keychain library, which fails fast and says why in its own words.
 */
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';

export type ProbeResult = 'answered' | 'silent' | 'not-probed';

/** The unix socket path (a leading NUL for an abstract one) libdbus would connect to first. */
export function sessionBusSocket(env: NodeJS.ProcessEnv): string | undefined {
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (address === undefined || address === '') {
    const runtime = env.XDG_RUNTIME_DIR;
    const userBus = runtime ? join(runtime, 'bus') : undefined;
    return userBus && existsSync(userBus) ? userBus : undefined;
  }
  const first = address.split(';')[0] ?? '';
  const colon = first.indexOf(':');
  if (colon < 0 || first.slice(0, colon) !== 'unix') return undefined;
  const params = new Map(
    first
      .slice(colon + 1)
      .split(',')
      .map((kv) => {
        const eq = kv.indexOf('=');
        return [kv.slice(0, eq), unescapeValue(kv.slice(eq + 1))] as const;
      }),
  );
  const path = params.get('path');
  if (path) return path;
  const abstract = params.get('abstract');
  if (abstract) return `\0${abstract}`;
  return undefined;
}

/** D-Bus address values escape bytes as %xx. */
function unescapeValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * 'answered': the bus replied to the SASL greeting; 'silent': it accepted but said nothing
 * before the deadline (wedged); 'not-probed': nothing to probe, or the connection failed at once.
 */
export function probeSessionBus(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ProbeResult> {
  const socketPath = sessionBusSocket(env);
  if (socketPath === undefined) return Promise.resolve('not-probed');
  return new Promise((resolve) => {
    const socket = createConnection(socketPath);
    const done = (result: ProbeResult): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done('silent'), timeoutMs);
    socket.once('connect', () => {
      // A D-Bus client starts with one NUL byte, then SASL; any line back means the daemon lives.
      const uid = typeof process.getuid === 'function' ? String(process.getuid()) : '0';
      socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    });
    socket.once('data', () => done('answered'));
    socket.once('error', () => done('not-probed'));
    socket.once('close', () => done('not-probed'));
  });
}
