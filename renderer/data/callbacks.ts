/**
 * The callbacks the bank endpoints recorded, as server state: the live, store-filtered feed, the
 * failed counts, and the two things done to one callback (recheck, replay).
 */
import { useMutation } from '@tanstack/react-query';
import { useApi } from '../api/client-context';
import { useEventFeed, useEventStats, useLiveFeed, type FeedFilters } from './event-feed';

/**
 * How many callbacks the page keeps (newest first), in pages of CALLBACK_PAGE fetched as the
 * reader scrolls; filters and search ask the store, which keeps them all.
 */
export const CALLBACK_LIMIT = 10_000;
export const CALLBACK_PAGE = 1_000;

/** Query keys of the Callbacks page: `all` + 'feed' + filters, `all` + 'stats' + query. */
export const callbacksKeys = {
  all: ['callbacks'] as const,
};

/** The callbacks matching `filters` (failed, failed check, search), as the store answers them, kept live. */
export function useCallbacks(filters: FeedFilters) {
  const options = { key: callbacksKeys.all, filters, pageSize: CALLBACK_PAGE, maxLoaded: CALLBACK_LIMIT };
  useLiveFeed(options);
  return useEventFeed(options);
}

/**
 * Failed callbacks per failed check, counted by the store (the badge and the grouping), of one
 * environment when one is chosen (issue 26 item 1).
 */
export function useFailedCounts(live: boolean, environment: string | null = null) {
  return useEventStats(
    callbacksKeys.all,
    {
      query: { kind: 'callback', failed: true, ...(environment ? { environment } : {}) },
      by: 'failed_check',
    },
    live ? 2_000 : 0,
  );
}

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

/** A fresh X-Session-ID for a stored sandbox callback (issue 26 item 5: curl with a fresh token). */
export function useFreshSession() {
  const api = useApi();
  return useMutation({ mutationFn: (id: string) => api.bank.freshSession({ id }) });
}
