import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import { useApi, useLiveEvent } from '../../api/client-context';
import { CALLBACK_LIMIT, prependSummary } from './callbacks-model';
import { callbacksKeys } from './query-keys';
import { useEventDetail } from '../events/use-event-detail';

export function useCallbacks() {
  const api = useApi();
  return useQuery({
    queryKey: callbacksKeys.list(),
    queryFn: async () => (await api.events.query({ kind: 'callback', limit: CALLBACK_LIMIT })).events,
  });
}

/** New callbacks go to the top of the cached list as they are stored: no refetch. */
export function useLiveCallbacks(): void {
  const queryClient = useQueryClient();
  useLiveEvent('events.appended', (e) => {
    if (e.kind !== 'callback') return;
    queryClient.setQueryData<EventSummary[]>(callbacksKeys.list(), (old) => prependSummary(old, e));
  });
}

/** One callback in full: the event detail's own query (events.get). */
export const useCallbackDetail = useEventDetail;

/**
 * Today's verdict on a stored callback's token. Shown beside the recorded one (RecheckCompare);
 * it never replaces the cached event: the recorded verdict is the callback's (issue 13 item 2).
 */
export function useRecheck() {
  const api = useApi();
  return useMutation({ mutationFn: (id: string) => api.bank.recheck({ id }) });
}

export function useReplay() {
  const api = useApi();
  return useMutation({ mutationFn: (id: string) => api.bank.replay({ id }) });
}
