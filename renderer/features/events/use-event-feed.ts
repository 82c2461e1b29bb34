import {
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import type { ConsoleApi } from '../../../electron/contract';
import type {
  EventKind,
  EventQuery,
  EventStatsQuery,
  EventSummary,
} from '../../../electron/contract/schemas/events';
import { useApi, useLiveEvent } from '../../api/client-context';

/**
 * One live, server-filtered list of events (issue 13, items 8 and 9), shared by the Callbacks and
 * Notifications pages: the store filters and searches (events.query with the filters and `text`,
 * through its FTS index) and counts (`total`); the page only shows what came back. Live events
 * are gathered and applied once per animation frame, so 2,000 a second cost one render a frame
 * however many arrive, and the virtualized list re-renders only the rows in view.
 */

/** The filters of a feed: an events.query without paging. `kind` is always set. */
export type FeedFilters = Omit<EventQuery, 'before' | 'limit'> & { kind: EventKind };

export interface FeedPage {
  events: EventSummary[];
  total: number;
}
export type Feed = InfiniteData<FeedPage, string | undefined>;

export interface FeedOptions {
  /** The feature's key; the filters are appended, so each filter has its own cache entry. */
  key: QueryKey;
  filters: FeedFilters;
  pageSize: number;
  /** At most this many summaries kept in memory (the store keeps them all). */
  maxLoaded: number;
}

/** The filters without empty values: the cache key and the query are the same object. */
export function cleanFilters(filters: FeedFilters): FeedFilters {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filters))
    if (v !== undefined && v !== null && v !== '' && v !== false) out[k] = v;
  return out as FeedFilters;
}

/** Only the kind: every live event of that kind matches, so it can be prepended as it is. */
function onlyKind(filters: FeedFilters): boolean {
  return Object.keys(filters).length === 1;
}

function loadedCount(pages: readonly FeedPage[]): number {
  return pages.reduce((n, p) => n + p.events.length, 0);
}

export function feedKey(key: QueryKey, filters: FeedFilters): QueryKey {
  return [...key, 'feed', cleanFilters(filters)];
}

/** Pages of matching summaries, newest first; the next page only when asked (scrolling near the end). */
export function useEventFeed({ key, filters, pageSize, maxLoaded }: FeedOptions) {
  const api = useApi();
  const clean = cleanFilters(filters);
  const query = useInfiniteQuery({
    queryKey: feedKey(key, clean),
    queryFn: ({ pageParam }) =>
      api.events.query({ ...clean, limit: pageSize, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last, pages) =>
      last.events.length < pageSize || loadedCount(pages) >= Math.min(maxLoaded, pages[0]!.total)
        ? undefined
        : last.events.at(-1)?.id,
    // Live events keep it current; a refetch would reload every page.
    staleTime: Infinity,
    // While another filter's first page loads, the last answer stays on screen (no flash of "Loading").
    placeholderData: (previous) => previous,
  });
  const events = useMemo(() => {
    const all = query.data?.pages.flatMap((p) => p.events) ?? [];
    return all.length > maxLoaded ? all.slice(0, maxLoaded) : all;
  }, [query.data, maxLoaded]);
  const total = query.data?.pages[0]?.total ?? 0;
  return { query, events, total };
}

/**
 * `batch` newest first, prepended to the feed; ids already there are skipped; `total` grows by
 * what was new. Past `maxLoaded` the oldest whole pages are dropped, so memory stays bounded.
 */
export function prependBatch(
  old: Feed | undefined,
  batch: readonly EventSummary[],
  maxLoaded: number,
  total?: number,
): Feed | undefined {
  if (!old || old.pages.length === 0 || batch.length === 0) return old;
  const first = old.pages[0]!;
  const known = new Set(first.events.slice(0, 2 * batch.length + 50).map((e) => e.id));
  const fresh = batch.filter((e) => !known.has(e.id));
  if (fresh.length === 0) return old;
  const pages = [
    { events: [...fresh, ...first.events], total: total ?? first.total + fresh.length },
    ...old.pages.slice(1),
  ];
  let count = loadedCount(pages);
  let params = old.pageParams;
  while (pages.length > 1 && count - pages.at(-1)!.events.length >= maxLoaded) {
    count -= pages.pop()!.events.length;
    params = params.slice(0, pages.length);
  }
  if (pages.length === 1 && count > maxLoaded)
    pages[0] = { ...pages[0]!, events: pages[0]!.events.slice(0, maxLoaded) };
  return { pages, pageParams: params };
}

/** What one head refresh reads at most (small: it runs while events pour in). */
const HEAD_LIMIT = 500;

const nextFrame: (fn: () => void) => void = (fn) =>
  typeof requestAnimationFrame === 'function' ? requestAnimationFrame(fn) : setTimeout(fn, 16);

/**
 * With a filter beyond the kind, whether a live event matches is the store's to say (its search
 * is FTS, its failed rule SQL): the feed asks it for what matched since its newest event, one
 * request at a time however many arrive meanwhile.
 */
async function refreshHead(
  api: ConsoleApi,
  client: QueryClient,
  key: QueryKey,
  filters: FeedFilters,
  maxLoaded: number,
): Promise<void> {
  const old = client.getQueryData<Feed>(key);
  const newest = old?.pages[0]?.events[0];
  if (!old) return;
  if (!newest) {
    await client.refetchQueries({ queryKey: key, exact: true });
    return;
  }
  const page = await api.events.query({ ...filters, since: newest.at, limit: HEAD_LIMIT });
  if (page.events.length >= HEAD_LIMIT) {
    // More matched than a page: start again from the top rather than leave a gap.
    await client.resetQueries({ queryKey: key, exact: true });
    return;
  }
  client.setQueryData<Feed>(key, (current) => prependBatch(current, page.events, maxLoaded));
  // `page.total` counts only what is newer: the feed's total is one count over the same filters.
  const { total } = await api.events.stats({ query: filters });
  client.setQueryData<Feed>(key, (current) =>
    current && current.pages.length > 0
      ? { ...current, pages: [{ ...current.pages[0]!, total }, ...current.pages.slice(1)] }
      : current,
  );
}

/** Applies live `events.appended` of the feed's kind to it, once per animation frame. */
export function useLiveFeed({ key, filters, maxLoaded }: Omit<FeedOptions, 'pageSize'>): void {
  const api = useApi();
  const client = useQueryClient();
  const clean = cleanFilters(filters);
  const qkey = feedKey(key, clean);
  const current = useRef({ qkey, clean });
  current.current = { qkey, clean };
  const pending = useRef<EventSummary[]>([]);
  const scheduled = useRef(false);
  const refreshing = useRef<'idle' | 'running' | 'again'>('idle');
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const refresh = () => {
    if (refreshing.current !== 'idle') {
      refreshing.current = 'again';
      return;
    }
    refreshing.current = 'running';
    const { qkey: k, clean: f } = current.current;
    void refreshHead(api, client, k, f, maxLoaded)
      .catch(() => undefined)
      .finally(() => {
        const again = refreshing.current === 'again';
        refreshing.current = 'idle';
        if (again && alive.current) refresh();
      });
  };

  const flush = () => {
    scheduled.current = false;
    if (!alive.current) return;
    const batch = pending.current.reverse();
    pending.current = [];
    const { qkey: k, clean: f } = current.current;
    if (onlyKind(f)) client.setQueryData<Feed>(k, (old) => prependBatch(old, batch, maxLoaded));
    else refresh();
  };

  useLiveEvent('events.appended', (e) => {
    if (e.kind !== current.current.clean.kind) return;
    pending.current.push(e);
    // A hidden page gets no frames: keep only what the list could show.
    if (pending.current.length > maxLoaded) pending.current.splice(0, pending.current.length - maxLoaded);
    if (scheduled.current) return;
    scheduled.current = true;
    nextFrame(flush);
  });
}

/**
 * Counts from the store (events.stats) for a list's badges and charts, refreshed every
 * `refreshMs` while the page is open (live events change them; a count per event would not keep up).
 */
export function useEventStats(key: QueryKey, stats: EventStatsQuery, refreshMs: number) {
  const api = useApi();
  return useQuery({
    queryKey: [...key, 'stats', stats],
    queryFn: () => api.events.stats(stats),
    refetchInterval: refreshMs,
    placeholderData: (previous) => previous,
  });
}
