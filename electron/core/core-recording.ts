/**
 * What becomes a stored event besides the bank's callbacks (issue 5: every exchange, every
 * trace): service exchanges, sandbox traces, a web page's refused request to the sandbox, and
 * each drop and return of the tunnel. Recording never fails the action it records: a store
 * that cannot be opened loses the record, not the exchange.
 */
import type { TunnelInfo } from '../contract/schemas/tunnel';
import { originRefusedEvent } from './bank';
import type { LazyAsync } from './core-lazy';
import type { EventHub } from './event-hub';
import { blankEvent, type EventStore, type NewEvent } from './store';

/** Appends one event when the store can take it; never throws. */
function append(store: LazyAsync<EventStore>, event: NewEvent): void {
  void store()
    .then((s) => s.append(event))
    .catch(() => undefined);
}

/**
 * Stores every `service.exchanged` as an exchange event and every `sandbox.traced` as a trace.
 *
 * @example
 * recordExchangesAndTraces(events, store);
 */
export function recordExchangesAndTraces(events: EventHub, store: LazyAsync<EventStore>): void {
  events.on('service.exchanged', (x) =>
    append(store, { ...blankEvent('exchange', x.at), path: x.request.url, data: x }),
  );
  events.on('sandbox.traced', (t) => append(store, { ...blankEvent('trace', t.at), path: t.kind, data: t }));
}

/** A web page's request to the sandbox (403): a compact refused record, like the bank's. */
export function sandboxRefusalRecorder(
  store: LazyAsync<EventStore>,
): (refused: Parameters<typeof originRefusedEvent>[0]) => void {
  return (refused) => append(store, originRefusedEvent(refused, 'trace'));
}

/**
 * Each drop and return of the tunnel as a trace event (an existing kind; the store's schema is
 * unchanged): path tunnel.up / tunnel.down, the client's last words as the warning.
 */
export function tunnelRecorder(store: LazyAsync<EventStore>): (info: TunnelInfo, url: string | null) => void {
  return (info, url) =>
    append(store, {
      ...blankEvent('trace', new Date().toISOString()),
      path: `tunnel.${info.state}`,
      warning: info.state === 'down' ? info.last_error : null,
      data: { tunnel: info, public_url: url },
    });
}
