/**
 * The service client's state: its options, its clock, its request timeout and its exchange
 * history. Every operation of the client (signing.ts, perform.ts, operations.ts, rotation.ts)
 * is a function over this one plain object, so each can be imported and tested on its own.
 */
import { ExchangeHistory } from './history';
import { SERVICE_TIMEOUT_MS } from './http';
import type { ServiceOptions } from './types';

/** What every operation of one profile's service client shares. */
export interface ClientContext {
  readonly options: ServiceOptions;
  readonly now: () => number;
  /** Give up on a request to the service after this long (ServiceOptions.timeoutMs). */
  readonly timeoutMs: number;
  readonly history: ExchangeHistory;
}

/**
 * The state of one client, with the defaults of ServiceOptions applied.
 *
 * @example
 * const ctx = createClientContext({ dataDir, events, keys, environments, composer, fetch });
 * await ctx.history.list(10);
 */
export function createClientContext(options: ServiceOptions): ClientContext {
  return {
    options,
    now: options.now ?? Date.now,
    timeoutMs: options.timeoutMs ?? SERVICE_TIMEOUT_MS,
    history: new ExchangeHistory(options.dataDir, options.historyCap),
  };
}
