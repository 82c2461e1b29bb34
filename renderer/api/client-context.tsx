import { createContext, useContext, useEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';
import type { ConsoleApi, EventName, EventPayload } from '../../electron/contract';
import type { ConsoleClient } from './client';
import type { EventStreamState } from './event-stream';

const ClientContext = createContext<ConsoleClient | null>(null);

export function ClientProvider({ client, children }: { client: ConsoleClient; children: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

export function useClient(): ConsoleClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient: no ClientProvider above this component');
  return client;
}

export function useApi(): ConsoleApi {
  return useClient().api;
}

export function useEventStreamState(): EventStreamState {
  const { events } = useClient();
  return useSyncExternalStore(events.subscribe, events.getSnapshot);
}

/**
 * Runs `handler` for every live event `name` while the calling component is mounted. Features
 * use it to invalidate or append to their react-query caches, e.g.
 *
 * @example
 * useLiveEvent('app.noticed', (notice) =>
 *   queryClient.setQueryData(appKeys.notices(), (old = []) => [...old, notice]));
 */
export function useLiveEvent<E extends EventName>(
  name: E,
  handler: (payload: EventPayload<E>) => void,
): void {
  const api = useApi();
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => api.on(name, (payload) => latest.current(payload)), [api, name]);
}
