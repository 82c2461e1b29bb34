import { useMutation } from '@tanstack/react-query';
import { useApi } from '../../api/client-context';
import { CALLBACK_LIMIT, CALLBACK_PAGE } from './callbacks-model';
import { callbacksKeys } from './query-keys';
import { useEventDetail } from '../events/use-event-detail';
import { useEventFeed, useEventStats, useLiveFeed, type FeedFilters } from '../events/use-event-feed';

/** The callbacks matching `filters` (failed, failed check, search), as the store answers them, kept live. */
export function useCallbacks(filters: FeedFilters) {
  const options = { key: callbacksKeys.all, filters, pageSize: CALLBACK_PAGE, maxLoaded: CALLBACK_LIMIT };
  useLiveFeed(options);
  return useEventFeed(options);
}

/** Failed callbacks per failed check, counted by the store (the badge and the grouping). */
export function useFailedCounts(live: boolean) {
  return useEventStats(
    callbacksKeys.all,
    { query: { kind: 'callback', failed: true }, by: 'failed_check' },
    live ? 2_000 : 0,
  );
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
