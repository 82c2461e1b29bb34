/**
 * The desktop app's bank endpoints listener: GET /user_auth, /key, /external_id and the
 * notification routes on 127.0.0.1:7301, the port `serve` uses by default, so a sandbox or a
 * service configured once reaches the bank whichever host runs it. Like the sandbox, the app must
 * start even when that port is taken or the bank endpoints cannot start: the engineer is told,
 * with the URL actually in use.
 */
import type { EventPayload } from '../contract';
import { toErrorData } from '../contract';
import type { ConsoleCore } from '../core/console-core';
import type { BankListener } from '../core/bank';

export const BANK_HOST = '127.0.0.1';
export const BANK_PORT = 7301;

type Notice = EventPayload<'app.noticed'>;

export interface BankStartup {
  /** Null when the bank endpoints could not start at all. */
  listener: BankListener | null;
  /** What the engineer must know about how they started; null when they started as configured. */
  notice: Notice | null;
}

function errorCode(err: unknown): unknown {
  return err && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
}

/**
 * Starts the bank endpoints on `port`, falling back to any free port when that one is in use.
 *
 * @example
 * const { listener, notice } = await startBankListener(core);
 */
export async function startBankListener(
  core: Pick<ConsoleCore, 'listenBank'>,
  options: { host?: string; port?: number; now?: () => Date } = {},
): Promise<BankStartup> {
  const host = options.host ?? BANK_HOST;
  const port = options.port ?? BANK_PORT;
  const at = () => (options.now?.() ?? new Date()).toISOString();
  try {
    return { listener: await core.listenBank({ host, port }), notice: null };
  } catch (err) {
    if (errorCode(err) !== 'EADDRINUSE' || port === 0) return { listener: null, notice: failed(err, at()) };
    try {
      const listener = await core.listenBank({ host, port: 0 });
      return {
        listener,
        notice: {
          at: at(),
          level: 'warning',
          message:
            `Bank endpoints: port ${port} is in use (another console or dets-console serve?), so the bank ` +
            `endpoints listen on ${listener.url.replace(/\/+$/, '')} for this session. Point the sandbox ` +
            'or the service there.',
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
    message: `Bank endpoints not started: ${code === 'INTERNAL' ? '' : `${code}: `}${message}. The rest of the console works.`,
  };
}
