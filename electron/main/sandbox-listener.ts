/**
 * The desktop app's sandbox listener: the service simulator on 127.0.0.1:7302, the port the CLI
 * and `serve` use by default, so a bank backend configured once works with any of them. The
 * desktop app must start even when that port is taken (another console, a `dets-console sandbox`
 * in a terminal) or the sandbox's state cannot be read: the rest of the console does not need
 * it. Either way the engineer is told, with the URL actually in use.
 */
import type { EventPayload } from '../contract';
import { toErrorData } from '../contract';
import type { ConsoleCore } from '../core/console-core';
import type { SandboxListener } from '../core/sandbox';

export const SANDBOX_HOST = '127.0.0.1';
export const SANDBOX_PORT = 7302;

type Notice = EventPayload<'app.noticed'>;

export interface SandboxStartup {
  /** Null when the sandbox could not start at all. */
  listener: SandboxListener | null;
  /** What the engineer must know about how it started; null when it started as configured. */
  notice: Notice | null;
}

function errorCode(err: unknown): unknown {
  return err && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
}

/**
 * Starts the sandbox on `port`, falling back to any free port when that one is in use.
 *
 * @example
 * const { listener, notice } = await startSandboxListener(core);
 * if (notice) core.events.emit('app.noticed', notice);
 */
export async function startSandboxListener(
  core: Pick<ConsoleCore, 'listenSandbox'>,
  options: { host?: string; port?: number; now?: () => Date } = {},
): Promise<SandboxStartup> {
  const host = options.host ?? SANDBOX_HOST;
  const port = options.port ?? SANDBOX_PORT;
  const at = () => (options.now?.() ?? new Date()).toISOString();
  try {
    return { listener: await core.listenSandbox({ host, port }), notice: null };
  } catch (err) {
    if (errorCode(err) !== 'EADDRINUSE' || port === 0) return { listener: null, notice: failed(err, at()) };
    try {
      const listener = await core.listenSandbox({ host, port: 0 });
      return {
        listener,
        notice: {
          at: at(),
          level: 'warning',
          message:
            `Sandbox: port ${port} is in use (another console or dets-console sandbox?), so the sandbox ` +
            `listens on ${listener.url.replace(/\/+$/, '')} for this session. Point your bank there.`,
        },
      };
    } catch (second) {
      return { listener: null, notice: failed(second, at()) };
    }
  }
}

function failed(err: unknown, at: string): Notice {
  const { code, message } = toErrorData(err);
  return {
    at,
    level: 'error',
    message: `Sandbox not started: ${code === 'INTERNAL' ? '' : `${code}: `}${message}. The rest of the console works.`,
  };
}
