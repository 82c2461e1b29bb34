/**
 * How the desktop app starts its loopback listeners (the sandbox, the bank endpoints): on the
 * port `serve` uses by default, so a bank backend or a service configured once reaches them
 * whichever host runs them; on any free port when that one is taken; and never fatally: the rest
 * of the console works without them. Either way the engineer is told, with the URL in use.
 */
import type { EventPayload } from '../contract';
import { toErrorData } from '../contract';

type Notice = EventPayload<'app.noticed'>;

export interface ListenerStartup<L> {
  /** Null when the listener could not start at all. */
  listener: L | null;
  /** What the engineer must know about how it started; null when it started as configured. */
  notice: Notice | null;
}

export interface ListenerSpec<L extends { url: string }> {
  /** "Sandbox", "Bank endpoints": the subject of the notices. */
  name: string;
  listen(options: { host: string; port: number }): Promise<L>;
  /** The defaults, as `serve` uses them (options may override them). */
  host: string;
  port: number;
  /** What probably holds `port` and what to do, for the in-use warning (`url`: the one in use). */
  busyHint(url: string, port: number): string;
}

/** What the app (or a test) may change of a listener's start. */
export interface ListenerOptions {
  host?: string;
  port?: number;
  now?: () => Date;
}

function errorCode(err: unknown): unknown {
  return err && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
}

/**
 * Starts a listener on its port (options over the spec's defaults), falling back to
 * any free port when that one is in use.
 */
export async function startListener<L extends { url: string }>(
  spec: ListenerSpec<L>,
  options: ListenerOptions = {},
): Promise<ListenerStartup<L>> {
  const host = options.host ?? spec.host;
  const port = options.port ?? spec.port;
  const at = () => (options.now?.() ?? new Date()).toISOString();
  const failed = (err: unknown): ListenerStartup<L> => {
    const { code, message } = toErrorData(err);
    return {
      listener: null,
      notice: {
        at: at(),
        level: 'error',
        message: `${spec.name} not started: ${code === 'INTERNAL' ? '' : `${code}: `}${message}. The rest of the console works.`,
      },
    };
  };
  try {
    return { listener: await spec.listen({ host, port }), notice: null };
  } catch (err) {
    if (errorCode(err) !== 'EADDRINUSE' || port === 0) return failed(err);
    try {
      const listener = await spec.listen({ host, port: 0 });
      return {
        listener,
        notice: {
          at: at(),
          level: 'warning',
          message: spec.busyHint(listener.url.replace(/\/+$/, ''), port),
        },
      };
    } catch (second) {
      return failed(second);
    }
  }
}
