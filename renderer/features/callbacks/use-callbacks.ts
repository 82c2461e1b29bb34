import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import { useApi, useLiveEvent } from '../../api/client-context';
import { CALLBACK_LIMIT, prependSummary } from './callbacks-model';
import { callbacksKeys } from './query-keys';

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

export function useCallbackDetail(id: string | null) {
  const api = useApi();
  return useQuery({
    queryKey: callbacksKeys.detail(id ?? ''),
    queryFn: () => api.events.get({ id: id! }),
    enabled: id !== null,
    staleTime: Infinity,
  });
}

export function useRecheck() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.bank.recheck({ id }),
    onSuccess: (detail, id) => queryClient.setQueryData(callbacksKeys.detail(id), detail),
  });
}

export function useReplay() {
  const api = useApi();
  return useMutation({ mutationFn: (id: string) => api.bank.replay({ id }) });
}
