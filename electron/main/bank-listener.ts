/**
 * The desktop app's bank endpoints listener: GET /user_auth, /key, /external_id and the
 * notification routes on 127.0.0.1:7301, the port `serve` uses by default.
 */
import type { ConsoleCore } from '../core/console-core';
import type { BankListener } from '../core/bank';
import { startListener, type ListenerOptions, type ListenerStartup } from './listener-startup';

export const BANK_HOST = '127.0.0.1';
export const BANK_PORT = 7301;

export type BankStartup = ListenerStartup<BankListener>;

/**
 * Starts the bank endpoints on `port`, falling back to any free port when that one is in use.
 *
 * @example
 * const { listener, notice } = await startBankListener(core);
 */
export function startBankListener(
  core: Pick<ConsoleCore, 'listenBank'>,
  options: ListenerOptions = {},
): Promise<BankStartup> {
  return startListener(
    {
      name: 'Bank endpoints',
      listen: (o) => core.listenBank(o),
      host: BANK_HOST,
      port: BANK_PORT,
      busyHint: (url, port) =>
        `Bank endpoints: port ${port} is in use (another console or dets-console serve?), so the bank ` +
        `endpoints listen on ${url} for this session. Point the sandbox or the service there.`,
    },
    options,
  );
}
