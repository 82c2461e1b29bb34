/**
 * The Callbacks page's state: the store's filters, the listed callbacks (one indexed query per
 * filter, issue 13 items 8 and 9), the failed-check counts, and the virtualized list that loads
 * the next page as its end nears and follows the keyboard cursor.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useListKeys } from '../../shared/use-list-keys';
import { useRowSelection } from '../../shared/row-selection';
import { useThrottledValue } from '../../shared/use-throttled-value';
import { useEventStreamState } from '../../api/client-context';
import { useSettledSearch } from '../../shared/store-search';
import { CALLBACK_ROW_HEIGHT } from './callbacks-model';
import { useCallbacksStore } from './callbacks-store';
import { useCallbacks, useFailedCounts } from '../../data/callbacks';

const rowHeight = () => CALLBACK_ROW_HEIGHT;

/** How often the durations histogram follows the list while callbacks arrive. */
const HISTOGRAM_EVERY_MS = 500;

/** The Callbacks page's state, for its toolbar, list and side panel. */
export function useCallbacksPage() {
  const live = useEventStreamState().status === 'connected';
  const store = useCallbacksStore();
  const { failedOnly, failedCheck, environment, text, cursorId } = store;
  const { select, moveCursor } = useCallbacksStore.getState();
  const settledText = useSettledSearch(text);
  // Filters and search are the store's (issue 13, items 8 and 9): one indexed query each.
  const {
    query: callbacks,
    events: shown,
    total,
  } = useCallbacks({
    kind: 'callback',
    ...(environment ? { environment } : {}),
    ...(failedCheck ? { failed_check: failedCheck } : failedOnly ? { failed: true } : {}),
    ...(settledText.trim() ? { text: settledText.trim() } : {}),
  });
  const failedStats = useFailedCounts(live, environment).data;
  const groups = useMemo(
    () => (failedStats?.groups ?? []).flatMap((g) => (g.value ? [{ check: g.value, count: g.count }] : [])),
    [failedStats],
  );
  // The histogram of what is listed: recounted twice a second, not on every live frame.
  const histogramOf = useThrottledValue(shown, HISTOGRAM_EVERY_MS);
  const filtering = callbacks.isPlaceholderData || settledText !== text;
  const { scroller, virtualizer } = useCallbackList(shown, cursorId, callbacks);
  const shownIds = useMemo(() => shown.map((e) => e.id), [shown]);
  const selection = useRowSelection(shownIds);

  // j/k (and the arrows in the list) move the cursor, Enter opens, as soon as the page has focus.
  useListKeys({
    ids: () => shown.map((e) => e.id),
    cursorId,
    listRef: scroller,
    onMove: moveCursor,
    onOpen: select,
    onClose: () => select(null),
    onToggle: selection.toggle,
  });
  return {
    ...store,
    live,
    settledText,
    callbacks,
    shown,
    total,
    groups,
    failedCount: failedStats?.total ?? 0,
    histogramOf,
    filtering,
    scroller,
    virtualizer,
    shownIds,
    selection,
  };
}

/** What {@link useCallbacksPage} gives the page's parts. */
export type CallbacksPageState = ReturnType<typeof useCallbacksPage>;

interface Pages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isError: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** The virtualized list: scrolled to the cursor, and the next page fetched near the end. */
function useCallbackList(shown: ReadonlyArray<{ id: string }>, cursorId: string | null, pages: Pages) {
  const scroller = useRef<HTMLDivElement>(null);
  // Only with a cursor: a scan of 20,000 rows on every live render costs frames (issue 13 item 9).
  const at = useMemo(
    () => (cursorId === null ? -1 : shown.findIndex((e) => e.id === cursorId)),
    [shown, cursorId],
  );
  // Virtualized with a fixed row height and stable options (no re-layout of every row per render).
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: useCallback(() => scroller.current, []),
    estimateSize: rowHeight,
    overscan: 10,
    initialRect: { width: 800, height: 600 },
  });

  useEffect(() => {
    if (at >= 0) virtualizer.scrollToIndex(at, { align: 'auto' });
  }, [at, virtualizer]);

  // The next page when the rows in view near the end of those loaded.
  const lastInView = virtualizer.getVirtualItems().at(-1)?.index ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = pages;
  useEffect(() => {
    if (
      shown.length > 0 &&
      lastInView >= shown.length - 100 &&
      hasNextPage &&
      !isFetchingNextPage &&
      !isError
    )
      void fetchNextPage();
  }, [lastInView, shown.length, hasNextPage, isFetchingNextPage, isError, fetchNextPage]);
  return { scroller, virtualizer };
}
