/**
 * The desktop app's sandbox listener: the service simulator on 127.0.0.1:7302, the port the CLI
 * and `serve` use by default, so a bank backend configured once works with any of them.
 */
import type { ConsoleCore } from '../core/console-core';
import type { SandboxListener } from '../core/sandbox';
import { startListener, type ListenerOptions, type ListenerStartup } from './listener-startup';

export const SANDBOX_HOST = '127.0.0.1';
export const SANDBOX_PORT = 7302;

export type SandboxStartup = ListenerStartup<SandboxListener>;

/**
 * Starts the sandbox on `port`, falling back to any free port when that one is in use.
 *
 * @example
 * const { listener, notice } = await startSandboxListener(core);
 * if (notice) core.events.emit('app.noticed', notice);
 */
export function startSandboxListener(
  core: Pick<ConsoleCore, 'listenSandbox'>,
  options: ListenerOptions = {},
): Promise<SandboxStartup> {
  return startListener(
    {
      name: 'Sandbox',
      listen: (o) => core.listenSandbox(o),
      host: SANDBOX_HOST,
      port: SANDBOX_PORT,
      busyHint: (url, port) =>
        `Sandbox: port ${port} is in use (another console or dets-console sandbox?), so the sandbox ` +
        `listens on ${url} for this session. Point your bank there.`,
    },
    options,
  );
}
