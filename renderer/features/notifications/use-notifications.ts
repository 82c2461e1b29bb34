import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import type { EventQuery, EventSummary } from '../../../electron/contract/schemas/events';
import { useApi, useLiveEvent } from '../../api/client-context';
import { saveTextFile } from '../../shared/download';
import { MAX_LOADED, PAGE_SIZE } from './notifications-model';
import { notificationsKeys } from './query-keys';

interface FeedPage {
  events: EventSummary[];
  total: number;
}
type Feed = InfiniteData<FeedPage, string | undefined>;

function loadedCount(pages: readonly FeedPage[]): number {
  return pages.reduce((n, p) => n + p.events.length, 0);
}

export function useNotificationFeed() {
  const api = useApi();
  const query = useInfiniteQuery({
    queryKey: notificationsKeys.feed(),
    queryFn: ({ pageParam }) =>
      api.events.query({
        kind: 'notification',
        limit: PAGE_SIZE,
        ...(pageParam ? { before: pageParam } : {}),
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last, pages) =>
      last.events.length < PAGE_SIZE || loadedCount(pages) >= Math.min(MAX_LOADED, pages[0]!.total)
        ? undefined
        : last.events.at(-1)?.id,
    // Live events keep it current; a refetch would reload every page.
    staleTime: Infinity,
  });
  const events = useMemo(() => {
    const all = query.data?.pages.flatMap((p) => p.events) ?? [];
    return all.length > MAX_LOADED ? all.slice(0, MAX_LOADED) : all;
  }, [query.data]);
  const total = query.data?.pages[0]?.total ?? 0;
  return { query, events, total };
}

/** How long live notifications are gathered before one cache update (a burst is one render, not hundreds). */
const LIVE_BATCH_MS = 150;

/**
 * Live notifications are prepended to the first page, batched; past MAX_LOADED the oldest page
 * ends are dropped, so memory stays bounded however long the console runs.
 */
export function useLiveNotifications(): void {
  const queryClient = useQueryClient();
  const pending = useRef<EventSummary[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  useLiveEvent('events.appended', (e) => {
    if (e.kind !== 'notification') return;
    pending.current.push(e);
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      const batch = pending.current.reverse();
      pending.current = [];
      queryClient.setQueryData<Feed>(notificationsKeys.feed(), (old) => prependBatch(old, batch));
    }, LIVE_BATCH_MS);
  });
}

/** `batch` newest first, prepended to the feed; ids already there are skipped. */
export function prependBatch(old: Feed | undefined, batch: EventSummary[]): Feed | undefined {
  if (!old || old.pages.length === 0 || batch.length === 0) return old;
  const first = old.pages[0]!;
  const known = new Set(first.events.slice(0, 2 * batch.length + 50).map((e) => e.id));
  const fresh = batch.filter((e) => !known.has(e.id));
  if (fresh.length === 0) return old;
  const pages = [
    { events: [...fresh, ...first.events], total: first.total + fresh.length },
    ...old.pages.slice(1),
  ];
  // Bound memory: drop the oldest whole pages once past the cap.
  let count = loadedCount(pages);
  let params = old.pageParams;
  while (pages.length > 1 && count - pages.at(-1)!.events.length >= MAX_LOADED) {
    count -= pages.pop()!.events.length;
    params = params.slice(0, pages.length);
  }
  return { pages, pageParams: params };
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
