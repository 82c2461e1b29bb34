/**
 * Starting the core's listeners (DESIGN.md "hosts"): the bank endpoints, with the tunnel's
 * probe route in front (issue 14), and the sandbox. Each records where it listens, so
 * app.info, the tunnel and the bank's fallback JWKS URL read what is true now. Stopping is the
 * listener's own close(), and the core's close (console-core.ts) closes what is left.
 */
import type { BankListener } from './bank';
import type { CoreParts } from './core-services';
import type { ConsoleCore } from './core-types';
import type { SandboxListener } from './sandbox';

/**
 * Starts the bank endpoints' listener.
 *
 * @example
 * const listener = await listenBank(parts, { host: '127.0.0.1', port: 0 });
 * parts.listeners.urls().bank === listener.url; // true
 */
export async function listenBank(
  parts: Pick<CoreParts, 'bank' | 'tunnel' | 'listeners'>,
  opts: Parameters<ConsoleCore['listenBank']>[0],
): Promise<BankListener> {
  const listener = await (await parts.bank()).listen({ ...opts, intercept: parts.tunnel.probeRoute });
  parts.listeners.bankListening({ url: listener.url, host: opts.host, port: listener.port });
  return listener;
}

/** Starts the sandbox's listener. */
export async function listenSandbox(
  parts: Pick<CoreParts, 'sandbox' | 'listeners'>,
  opts: Parameters<ConsoleCore['listenSandbox']>[0],
): Promise<SandboxListener> {
  const listener = await (await parts.sandbox()).listen(opts);
  parts.listeners.set({ sandbox: listener.url });
  return listener;
}
