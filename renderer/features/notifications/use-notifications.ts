import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EventQuery, NotificationRetention } from '../../../electron/contract/schemas/events';
import { useApi } from '../../api/client-context';
import { saveTextFile } from '../../shared/download';
import { useEventFeed, useEventStats, useLiveFeed, type FeedFilters } from '../events/use-event-feed';
import { MAX_LOADED, PAGE_SIZE } from './notifications-model';
import { notificationsKeys } from './query-keys';

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
