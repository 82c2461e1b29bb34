import {
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import type { ConsoleApi } from '../../electron/contract';
import type {
  EventKind,
  EventQuery,
  EventStatsQuery,
  EventSummary,
} from '../../electron/contract/schemas/events';
import { useApi, useLiveEvent } from '../api/client-context';
import {
  createFrameBatcher,
  createSerialRefresher,
  pacedFrames,
  type FrameBatcher,
  type SerialRefresher,
} from './live-batcher';

/**
 * One live, server-filtered list of events (issue 13, items 8 and 9), shared by the Callbacks and
 * Notifications pages: the store filters and searches (events.query with the filters and `text`,
 * through its FTS index) and counts (`total`); the page only shows what came back. Live events
 * are gathered and applied in one batch on an animation frame at most ten times a second, so
 * 2,000 a second cost ten renders a second however many arrive, and the virtualized list
 * re-renders only the rows in view.
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
    // The first page's length says nothing of the store's end (live events grow it; a long gap
    // replaces it by the newest HEAD_LIMIT): the total does; an older page shorter than asked is the end.
    getNextPageParam: (last, pages) =>
      last.events.length === 0 ||
      (pages.length > 1 && last.events.length < pageSize) ||
      loadedCount(pages) >= Math.min(maxLoaded, pages[0]!.total)
        ? undefined
        : last.events.at(-1)?.id,
    // Live events keep it current; a refetch would reload every page.
    staleTime: Infinity,
    // Each live frame replaces the first page; comparing 20,000 summaries deeply to keep the
    // unchanged ones' identity would cost more than the render it might save.
    structuralSharing: false,
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
  const events = [...fresh, ...first.events];
  // A gap filled after later arrivals were listed (a list shown again from the cache): the head
  // is put back newest first, by the time the store recorded (a stable sort: ties keep their order).
  const oldestFresh = fresh.reduce((m, e) => (e.at < m ? e.at : m), fresh[0]!.at);
  const newer = first.events.findIndex((e) => e.at <= oldestFresh);
  const head = fresh.length + (newer < 0 ? first.events.length : newer);
  if (head > fresh.length)
    events.splice(0, head, ...events.slice(0, head).sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0)));
  const pages = [{ events, total: total ?? first.total + fresh.length }, ...old.pages.slice(1)];
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
/**
 * A filtered list asks the store what matched at most this often: each ask is a query and a count
 * over the filters, and asked back to back while 2,000 events a second are written they would keep
 * the store busy and delay the answer to the next filter the reader picks (issue 13 item 9).
 */
export const REFRESH_GAP_MS = 250;

/** How often live arrivals are applied to a list at most (pacedFrames says why). */
export const LIVE_EVERY_MS = 100;

const nextFrame: (fn: () => void) => void = (fn) =>
  typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => fn()) : setTimeout(fn, 16);

/**
 * Brings the feed under `key` up to date with the store: what matched `filters` and was stored
 * after its newest event (the store says what matches: its search is FTS, its failed rule SQL).
 * By id, not by time: an event that arrived earlier but was committed later (a notification
 * waits for its commit; another process writes the same profile) is not skipped. `'again'` while
 * the feed's first page is still loading: events written meanwhile may be missing from that answer.
 */
export async function refreshHead(
  api: ConsoleApi,
  client: QueryClient,
  key: QueryKey,
  filters: FeedFilters,
  maxLoaded: number,
): Promise<'done' | 'again'> {
  const old = client.getQueryData<Feed>(key);
  if (!old) return client.getQueryState(key)?.fetchStatus === 'fetching' ? 'again' : 'done';
  const newest = old.pages[0]?.events[0];
  if (!newest) {
    await client.refetchQueries({ queryKey: key, exact: true });
    return 'done';
  }
  // The highest id listed (ids sort in commit order; a filled gap is shown by time, so the first
  // row is not always the last stored).
  const after = old.pages[0]!.events.reduce((m, e) => (e.id > m ? e.id : m), newest.id);
  const page = await api.events.query({ ...filters, after, limit: HEAD_LIMIT });
  if (page.events.length >= HEAD_LIMIT) {
    // More matched than a page: the newest HEAD_LIMIT become the list (older ones load by `before`
    // as the reader scrolls, so nothing is skipped) rather than leave a gap, and without a
    // reload that would compete with the reader's next filter. `page.total` counts every match
    // stored after the feed's newest, none of which is listed yet.
    const total = old.pages[0]!.total + page.total;
    client.setQueryData<Feed>(key, { pages: [{ events: page.events, total }], pageParams: [undefined] });
    return 'done';
  }
  // Every match newer than the feed's newest is in `page` (fewer than HEAD_LIMIT), so the total
  // grows by those not listed yet (prependBatch): no count over the filters, which would be a
  // second query competing with the reader's next filter while events pour in.
  client.setQueryData<Feed>(key, (current) => prependBatch(current, page.events, maxLoaded));
  return 'done';
}

/**
 * Keeps the feed current with live `events.appended` of its kind. With only the kind as filter,
 * arrivals are prepended in one batch per animation frame, at most every LIVE_EVERY_MS (one render
 * however many arrive meanwhile). With
 * more filters, or while the feed's first page is loading, the store is asked what matched since
 * the feed's newest event, one ask at a time and at most every REFRESH_GAP_MS. A feed shown again
 * from the cache (a filter changed back, the page reopened) is asked the same at once, so what
 * arrived while another list was shown is not missing from it.
 */
export function useLiveFeed({ key, filters, maxLoaded }: Omit<FeedOptions, 'pageSize'>): void {
  const api = useApi();
  const client = useQueryClient();
  const clean = cleanFilters(filters);
  const qkey = feedKey(key, clean);
  const current = useRef({ qkey, clean });
  current.current = { qkey, clean };
  const keyText = JSON.stringify(qkey);

  // Made in an effect (and remade after StrictMode's trial unmount), cancelled on unmount.
  const live = useRef<{ batcher: FrameBatcher<EventSummary>; refresher: SerialRefresher } | null>(null);
  useEffect(() => {
    const refresher = createSerialRefresher({
      run: () => {
        const { qkey: k, clean: f } = current.current;
        return refreshHead(api, client, k, f, maxLoaded);
      },
      minGapMs: REFRESH_GAP_MS,
      now: () => Date.now(),
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    });
    const batcher = createFrameBatcher<EventSummary>({
      maxPending: maxLoaded,
      schedule: pacedFrames({
        minGapMs: LIVE_EVERY_MS,
        frame: nextFrame,
        now: () => Date.now(),
        setTimer: (fn, ms) => setTimeout(fn, ms),
      }),
      flush: (batch) => {
        const { qkey: k, clean: f } = current.current;
        if (onlyKind(f) && client.getQueryData<Feed>(k))
          client.setQueryData<Feed>(k, (old) => prependBatch(old, batch.reverse(), maxLoaded));
        else refresher.request();
      },
    });
    live.current = { batcher, refresher };
    return () => {
      batcher.cancel();
      refresher.cancel();
      live.current = null;
    };
  }, [api, client, maxLoaded]);
  // A list taken from the cache missed what arrived while it was not shown.
  useEffect(() => {
    if (client.getQueryData<Feed>(current.current.qkey)) live.current?.refresher.request();
  }, [keyText, client]);

  useLiveEvent('events.appended', (e) => {
    if (e.kind === current.current.clean.kind) live.current?.batcher.push(e);
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
