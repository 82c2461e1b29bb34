/** One stored event in full (`events.get`), and the listener that received it. */
import { useQuery } from '@tanstack/react-query';
import type { EventDetail } from '../../electron/contract/schemas/events';
import { useApi } from '../api/client-context';
import { useBankStatus } from './bank';

/** Query keys of the event detail (STYLE.md 7): one stored event in full, from events.get. */
export const eventKeys = {
  all: ['events'] as const,
  detail: (id: string) => [...eventKeys.all, 'detail', id] as const,
};

/** One stored event in full; a stored event never changes, so it is read once. */
export function useEventDetail(id: string | null) {
  const api = useApi();
  return useQuery({
    queryKey: eventKeys.detail(id ?? ''),
    queryFn: () => api.events.get({ id: id! }),
    enabled: id !== null,
    staleTime: Infinity,
  });
}

/**
 * The listener that received the event, from the core's status (never guessed from the page's
 * own address): the bank endpoints for callbacks and notifications. Exchanges and traces store
 * absolute URLs already.
 */
export function useListenerUrl(detail: EventDetail | undefined): string | null {
  const bank = useBankStatus();
  if (!detail || (detail.kind !== 'callback' && detail.kind !== 'notification')) return null;
  return bank.data?.url ?? null;
}
