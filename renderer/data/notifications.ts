/**
 * The notifications the bank endpoints acknowledged, as server state: the live, store-filtered
 * feed, counts and rates, export, and the retention of acknowledged notifications.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EventQuery, NotificationRetention } from '../../electron/contract/schemas/events';
import { useApi } from '../api/client-context';
import { saveTextFile } from '../shared/download';
import { useEventFeed, useEventStats, useLiveFeed, type FeedFilters } from './event-feed';

/**
 * Summaries per events.query call: small enough that parsing one page and adding it to the list
 * fits within a frame or two while the user scrolls (the contract allows 10,000).
 */
export const PAGE_SIZE = 1_000;
/**
 * At most this many summaries are kept in memory (the store keeps them all; search, filters and
 * export read the store). Live events are prepended every frame, so this bounds that work too.
 */
export const MAX_LOADED = 20_000;

/** Query keys of the Notifications page: `all` + 'feed' + filters, `all` + 'stats' + query. */
export const notificationsKeys = {
  all: ['notifications'] as const,
  /** The retention of acknowledged notifications (events.retention). */
  retention: () => ['notifications', 'retention'] as const,
};

/** The notifications matching `filters`, as the store answers them, kept live. */
export function useNotificationFeed(filters: FeedFilters) {
  const options = { key: notificationsKeys.all, filters, pageSize: PAGE_SIZE, maxLoaded: MAX_LOADED };
  useLiveFeed(options);
  return useEventFeed(options);
}

/** Notifications per outcome, counted by the store (the "repeats" badge). */
export function useNotificationCounts(live: boolean) {
  return useEventStats(
    notificationsKeys.all,
    { query: { kind: 'notification' }, by: 'outcome' },
    live ? 2_000 : 0,
  );
}

/** Notifications per whole second or minute, counted by the store, for the rate chart. */
export function useNotificationRate(bucketMs: number, buckets: number) {
  return useEventStats(
    notificationsKeys.all,
    { query: { kind: 'notification' }, rate: { bucket_ms: bucketMs, buckets } },
    Math.min(bucketMs, 10_000),
  );
}

export function useExportNotifications() {
  const api = useApi();
  return useMutation({
    mutationFn: async (input: { format: 'json' | 'csv'; query: EventQuery }) => {
      const out = await api.events.export(input);
      saveTextFile(out.text, out.filename, out.mime);
      return out;
    },
  });
}

/** The retention of acknowledged notifications, their count and the database size. */
export function useNotificationRetention() {
  const api = useApi();
  return useQuery({ queryKey: notificationsKeys.retention(), queryFn: () => api.events.retention() });
}

/**
 * A retention change: `confirm: false` only asks what it would remove (nothing changes);
 * `confirm: true` applies it, and the lists and counts are read again.
 */
export function useSetNotificationRetention() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { rule: NotificationRetention; confirm: boolean }) => api.events.setRetention(input),
    onSuccess: (result) => {
      if (result.applied) return queryClient.invalidateQueries({ queryKey: notificationsKeys.all });
      return undefined;
    },
  });
}
