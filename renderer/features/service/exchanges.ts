import type { Exchange } from '../../../electron/contract/schemas/service';

/** How many exchanges the history keeps on screen (the core keeps more; `service.exchanges` pages them). */
export const EXCHANGE_LIMIT = 100;

/** Newest first, one entry per id: an exchange arrives both live and as a call's result. */
export function mergeExchange(list: Exchange[] | undefined, exchange: Exchange): Exchange[] | undefined {
  if (!list) return list; // not loaded yet: the first fetch brings it
  const rest = list.filter((e) => e.id !== exchange.id);
  return [exchange, ...rest].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, EXCHANGE_LIMIT);
}
