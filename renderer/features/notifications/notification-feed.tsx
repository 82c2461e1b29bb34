import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, type RefObject } from 'react';
import { formatClock } from '../../shared/format';
import { RowCheckbox } from '../../shared/row-selection';
import { routeOf, type FeedRow } from './notifications-model';

/** Fixed row height: the virtualizer never measures, so 100,000 rows scroll as smoothly as 100. */
export const ROW_HEIGHT = 26;

/**
 * The feed, virtualized: only the rows in view (plus a few) are in the DOM. Rows are plain spans
 * keyed by event id (or transaction_id when grouped). When new rows arrive at the top while the
 * user has scrolled down, the scroll position moves by their height so what they read stays put.
 */
const rowHeight = () => ROW_HEIGHT;
/** How many rows before the end of those loaded the next page is asked for. */
const NEAR_END = 200;

export function NotificationFeed({
  rows,
  grouped,
  selectedId,
  cursorId,
  onSelect,
  isChecked,
  onToggle,
  scroller,
  onNearEnd,
  listKey,
}: {
  rows: readonly FeedRow[];
  grouped: boolean;
  selectedId: string | null;
  cursorId: string | null;
  onSelect: (id: string) => void;
  /** Row selection (issue 28 item 2): whether a row's checkbox is ticked, and ticking it. */
  isChecked: (id: string) => boolean;
  onToggle: (id: string) => void;
  /** The scrolling element; the page's keyboard handling needs it too. */
  scroller: RefObject<HTMLDivElement | null>;
  /** Called when the rows in view come near the end of those loaded (the next page is fetched). */
  onNearEnd?: () => void;
  /** Which list this is (its filters): another list's first row is no place to keep. */
  listKey?: string;
}) {
  const getScrollElement = useCallback(() => scroller.current, []);
  // Stable options: the virtualizer recomputes its 100,000 row positions whenever count,
  // estimateSize or getItemKey change identity, so neither is a fresh closure per render (the
  // default key is the index; React keys the rows by event below).
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize: rowHeight,
    overscan: 12,
    // Before the first layout (and in tests without layout) assume a window's worth of rows.
    initialRect: { width: 800, height: 600 },
  });

  // Keep the reader's place when rows are prepended (to the same list: a new filter's answer
  // starts at its top, and scanning it for the old first row would cost a frame for nothing).
  const firstKey = useRef<{ list: string | undefined; key: string | null }>({ list: listKey, key: null });
  useLayoutEffect(() => {
    const el = scroller.current;
    const previous = firstKey.current;
    firstKey.current = { list: listKey, key: rows[0]?.key ?? null };
    if (!el || previous.list !== listKey || !previous.key || el.scrollTop <= 0) return;
    if (rows[0]?.key === previous.key) return;
    const limit = Math.min(rows.length, 20_000);
    for (let i = 1; i < limit; i++) {
      if (rows[i]!.key === previous.key) {
        el.scrollTop += i * ROW_HEIGHT;
        return;
      }
    }
  }, [rows, listKey, scroller]);

  // The keyboard cursor stays in view. Only with a cursor: a scan of 20,000 rows on every live
  // render costs frames (issue 13 item 9).
  const cursorIndex = useMemo(
    () => (cursorId === null ? -1 : rows.findIndex((r) => r.event.id === cursorId)),
    [rows, cursorId],
  );
  useEffect(() => {
    if (cursorIndex >= 0) virtualizer.scrollToIndex(cursorIndex, { align: 'auto' });
  }, [cursorIndex, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const lastInView = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (rows.length > 0 && lastInView >= rows.length - NEAR_END) onNearEnd?.();
  }, [lastInView, rows.length, onNearEnd]);

  return (
    <div className="feed" role="table" aria-label="Notifications, newest first" aria-rowcount={rows.length}>
      <div className="feed-row feed-head" role="row">
        <span role="columnheader" aria-label="selected" />
        <span role="columnheader">time</span>
        <span role="columnheader">route</span>
        <span role="columnheader">outcome</span>
        <span role="columnheader">transaction_id</span>
        <span role="columnheader">{grouped ? 'count' : 'HTTP'}</span>
        <span role="columnheader">from</span>
      </div>
      <div className="feed-scroller" ref={scroller} data-testid="notifications-scroller" tabIndex={0}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => (
            <FeedRowView
              key={rows[item.index]!.key}
              row={rows[item.index]!}
              index={item.index}
              top={item.start}
              grouped={grouped}
              selectedId={selectedId}
              cursorId={cursorId}
              onSelect={onSelect}
              checked={isChecked(rows[item.index]!.event.id)}
              onToggle={onToggle}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

/** One notification (or one transaction's repeats, grouped): time, route, outcome, id, HTTP or count, sender. */
function FeedRowView({
  row,
  index,
  top,
  grouped,
  selectedId,
  cursorId,
  onSelect,
  checked,
  onToggle,
}: {
  row: FeedRow;
  index: number;
  top: number;
  grouped: boolean;
  selectedId: string | null;
  cursorId: string | null;
  onSelect: (id: string) => void;
  checked: boolean;
  onToggle: (id: string) => void;
}) {
  const e = row.event;
  return (
    <div
      role="row"
      aria-rowindex={index + 1}
      className={`feed-row outcome-${e.outcome ?? 'none'}${e.id === selectedId ? ' is-selected' : ''}${e.id === cursorId ? ' is-cursor' : ''}`}
      aria-selected={e.id === selectedId}
      data-cursor={String(e.id === cursorId)}
      onClick={() => onSelect(e.id)}
      style={{ transform: `translateY(${top}px)` }}
      data-testid="notifications-row"
      data-event-id={e.id}
      data-outcome={e.outcome ?? ''}
      data-transaction-id={e.transaction_id ?? ''}
      data-count={row.count}
    >
      <span role="cell">
        <RowCheckbox
          checked={checked}
          onToggle={() => onToggle(e.id)}
          label={`Select the ${routeOf(e.path)} notification at ${formatClock(e.at)}${grouped && row.count > 1 ? ` and its ${row.count - 1} repeats` : ''}`}
        />
      </span>
      <span title={e.at}>{formatClock(e.at)}</span>
      <span title={e.path ?? undefined}>{routeOf(e.path)}</span>
      <span className="feed-outcome">{e.outcome ?? '—'}</span>
      <span className="feed-tx" title={e.transaction_id ?? undefined}>
        {e.transaction_id ?? <em className="muted">{e.warning ?? 'no transaction_id'}</em>}
      </span>
      <span>
        {grouped ? (
          row.count > 1 ? (
            <span className="badge badge-accent" data-testid="notifications-row-count">
              ×{row.count}
            </span>
          ) : (
            '1'
          )
        ) : (
          (e.status ?? '—')
        )}
      </span>
      <span className="muted" title={e.remote ?? undefined}>
        {e.remote ?? ''}
      </span>
    </div>
  );
}
