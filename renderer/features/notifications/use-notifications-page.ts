/**
 * The Notifications page's state: the store's filters as one store query (route, outcome and
 * search are answered by the store, issue 13 items 8 and 9), the feed's rows (grouped by
 * transaction or not), the counts, the export and its transient message.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useListKeys } from '../../shared/use-list-keys';
import { useRowSelection } from '../../shared/row-selection';
import type { EventQuery } from '../../../electron/contract/schemas/events';
import { useEventStreamState } from '../../api/client-context';
import { useSettledSearch } from '../../shared/store-search';
import { useBankStatus } from '../../data/bank';
import { eventsOfRows, groupRepeats, shownRows, toRows } from './notifications-model';
import { useNotificationsStore } from './notifications-store';
import { useExportNotifications, useNotificationCounts, useNotificationFeed } from '../../data/notifications';

/** The Notifications page's state, for its actions, toolbar and feed. */
export function useNotificationsPage() {
  const [showRetention, setShowRetention] = useState(false);
  const live = useEventStreamState().status === 'connected';
  const store = useNotificationsStore();
  const { route, outcome, text, grouped, cursorId, openGroups } = store;
  const { select, moveCursor, setGroupOpen, openMember } = useNotificationsStore.getState();
  const scroller = useRef<HTMLDivElement>(null);
  const settledText = useSettledSearch(text);
  const prefix = useBankStatus().data?.notify_path_prefix ?? '/api/svc/notify';
  const filters: EventQuery & { kind: 'notification' } = {
    kind: 'notification',
    ...(route ? { path: `${prefix}/${route}` } : {}),
    ...(outcome ? { outcome } : {}),
    ...(settledText.trim() ? { text: settledText.trim() } : {}),
  };
  const { query, events, total } = useNotificationFeed(filters);
  const counts = useNotificationCounts(live).data;
  const exporter = useExportNotifications();
  // "Exported 13 notifications" is a transient message: it goes after a few seconds (issue 13, 8).
  const { data: exported, reset: resetExport } = exporter;
  useEffect(() => {
    if (!exported) return;
    const t = setTimeout(resetExport, 5_000);
    return () => clearTimeout(t);
  }, [exported, resetExport]);

  const rows = useMemo(() => (grouped ? groupRepeats(events) : toRows(events)), [events, grouped]);
  const rowIds = useMemo(() => rows.map((r) => r.event.id), [rows]);
  // Issue 27 item 3: a transaction's notifications under its group, when the group is open.
  const shown = useMemo(() => shownRows(rows, (key) => openGroups[key] === true), [rows, openGroups]);
  const shownById = useMemo(() => new Map(shown.map((r) => [r.id, r])), [shown]);
  const selection = useRowSelection(rowIds);
  const selectedEventIds = useMemo(
    () => eventsOfRows(selection.selectedListed, events, grouped),
    [selection.selectedListed, events, grouped],
  );
  // A member's row opens its own notification and ticks its group (what a scenario saves).
  const open = (id: string) => {
    const r = shownById.get(id);
    if (r?.kind === 'member') openMember(r.event.id, r.id);
    else select(id);
  };
  useListKeys({
    ids: () => shown.map((r) => r.id),
    cursorId,
    listRef: scroller,
    onMove: moveCursor,
    onOpen: open,
    onClose: () => select(null),
    onToggle: (id) => selection.toggle(shownById.get(id)?.groupId ?? id),
    onExpand: (id, on) => {
      const r = shownById.get(id);
      if (!r || r.kind === 'single') return;
      setGroupOpen(r.row.key, on);
      // Closing from a member puts the cursor back on its group.
      if (!on && r.kind === 'member') moveCursor(r.groupId!);
    },
  });

  // Older pages load as the reader nears the end of what is loaded (up to MAX_LOADED).
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage && !isError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isError, fetchNextPage]);
  return {
    ...store,
    showRetention,
    toggleRetention: () => setShowRetention((v) => !v),
    live,
    scroller,
    filters,
    query,
    events,
    total,
    rows,
    shown,
    open,
    toggleGroup: (key: string) => setGroupOpen(key, openGroups[key] !== true),
    rowIds,
    selection,
    selectedEventIds,
    repeats: counts?.groups.find((g) => g.value === 'repeat')?.count ?? 0,
    all: counts?.total ?? total,
    exporter,
    loadMore,
    filtering: query.isPlaceholderData || settledText !== text,
  };
}

/** What {@link useNotificationsPage} gives the page's parts. */
export type NotificationsPageState = ReturnType<typeof useNotificationsPage>;
