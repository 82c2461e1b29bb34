import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, type RefObject } from 'react';
import { formatClock, formatClockMs } from '../../shared/format';
import { RowCheckbox } from '../../shared/row-selection';
import { outcomesOf, routeOf, type ShownRow } from './notifications-model';

/** Fixed row height: the virtualizer never measures, so 100,000 rows scroll as smoothly as 100. */
export const ROW_HEIGHT = 26;

/**
 * The feed, virtualized: only the rows in view (plus a few) are in the DOM. Rows are plain spans
 * keyed by event id (or transaction_id when grouped; an open group's notifications follow it). When new rows arrive at the top while the
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
  isOpen,
  onToggleGroup,
  scroller,
  onNearEnd,
  listKey,
}: {
  rows: readonly ShownRow[];
  grouped: boolean;
  selectedId: string | null;
  cursorId: string | null;
  /** Opens a row (its id: the event's, or `m:<id>` for a group's member). */
  onSelect: (id: string) => void;
  /** Grouped: whether a transaction's group is open, and opening or closing it. */
  isOpen: (groupKey: string) => boolean;
  onToggleGroup: (groupKey: string) => void;
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
    firstKey.current = { list: listKey, key: rows[0]?.id ?? null };
    if (!el || previous.list !== listKey || !previous.key || el.scrollTop <= 0) return;
    if (rows[0]?.id === previous.key) return;
    const limit = Math.min(rows.length, 20_000);
    for (let i = 1; i < limit; i++) {
      if (rows[i]!.id === previous.key) {
        el.scrollTop += i * ROW_HEIGHT;
        return;
      }
    }
  }, [rows, listKey, scroller]);

  // The keyboard cursor stays in view. Only with a cursor: a scan of 20,000 rows on every live
  // render costs frames (issue 13 item 9).
  const cursorIndex = useMemo(
    () => (cursorId === null ? -1 : rows.findIndex((r) => r.id === cursorId)),
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
              key={rows[item.index]!.kind === 'member' ? rows[item.index]!.id : rows[item.index]!.row.key}
              shown={rows[item.index]!}
              index={item.index}
              top={item.start}
              grouped={grouped}
              selectedId={selectedId}
              cursorId={cursorId}
              onSelect={onSelect}
              checked={isChecked(rows[item.index]!.groupId ?? rows[item.index]!.event.id)}
              onToggle={onToggle}
              open={isOpen(rows[item.index]!.row.key)}
              onToggleGroup={onToggleGroup}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

/** One notification (or one transaction's repeats, grouped): time, route, outcome, id, HTTP or count, sender. */
function FeedRowView({
  shown,
  index,
  top,
  grouped,
  selectedId,
  cursorId,
  onSelect,
  checked,
  onToggle,
  open,
  onToggleGroup,
}: {
  shown: ShownRow;
  index: number;
  top: number;
  grouped: boolean;
  selectedId: string | null;
  cursorId: string | null;
  onSelect: (id: string) => void;
  checked: boolean;
  onToggle: (id: string) => void;
  open: boolean;
  onToggleGroup: (groupKey: string) => void;
}) {
  const { row, kind } = shown;
  const e = shown.event;
  if (kind === 'member') {
    return (
      <MemberRowView
        shown={shown}
        index={index}
        top={top}
        selected={e.id === selectedId}
        cursor={shown.id === cursorId}
        onSelect={onSelect}
      />
    );
  }
  const isGroup = kind === 'group';
  const selected = e.id === selectedId && !open;
  return (
    <div
      role="row"
      aria-rowindex={index + 1}
      aria-expanded={isGroup ? open : undefined}
      className={`feed-row outcome-${e.outcome ?? 'none'}${selected ? ' is-selected' : ''}${shown.id === cursorId ? ' is-cursor' : ''}${isGroup ? ' is-group' : ''}`}
      aria-selected={selected}
      data-cursor={String(shown.id === cursorId)}
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
      <span className="feed-outcome">{isGroup ? <GroupOutcomes shown={shown} /> : (e.outcome ?? '—')}</span>
      <span className="feed-tx" title={e.transaction_id ?? undefined}>
        {e.transaction_id ?? <em className="muted">{e.warning ?? 'no transaction_id'}</em>}
      </span>
      <span>
        {isGroup ? (
          <button
            type="button"
            className="feed-group-toggle"
            aria-expanded={open}
            aria-label={`${open ? 'Hide' : 'Show'} the ${row.count} notifications of ${e.transaction_id ?? ''}`}
            onClick={(ev) => {
              ev.stopPropagation();
              onToggleGroup(row.key);
            }}
            data-testid="notifications-group-toggle"
          >
            <span aria-hidden="true">{open ? '▾' : '▸'}</span>{' '}
            <span className="badge badge-accent" data-testid="notifications-row-count">
              ×{row.count}
            </span>
          </button>
        ) : grouped ? (
          '1'
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

/** A group's outcomes in short ("1 ✓ · 2 repeats"), the words in full on hover. */
function GroupOutcomes({ shown }: { shown: ShownRow }) {
  const c = outcomesOf(shown.row.members ?? []);
  const words = `${c.accepted} accepted, ${c.repeat} repeat${c.repeat === 1 ? '' : 's'}${c.rejected > 0 ? `, ${c.rejected} rejected` : ''}`;
  return (
    <span
      title={words}
      data-testid="notifications-group-outcomes"
      data-accepted={c.accepted}
      data-repeats={c.repeat}
    >
      {c.accepted}✓ {c.repeat}↻
    </span>
  );
}

/** One notification of an open group, under it: accepted or repeat, its own time and HTTP status. */
function MemberRowView({
  shown,
  index,
  top,
  selected,
  cursor,
  onSelect,
}: {
  shown: ShownRow;
  index: number;
  top: number;
  selected: boolean;
  cursor: boolean;
  onSelect: (id: string) => void;
}) {
  const e = shown.event;
  return (
    <div
      role="row"
      aria-rowindex={index + 1}
      aria-level={2}
      className={`feed-row feed-member outcome-${e.outcome ?? 'none'}${selected ? ' is-selected' : ''}${cursor ? ' is-cursor' : ''}`}
      aria-selected={selected}
      data-cursor={String(cursor)}
      onClick={() => onSelect(shown.id)}
      style={{ transform: `translateY(${top}px)` }}
      data-testid="notifications-member"
      data-event-id={e.id}
      data-outcome={e.outcome ?? ''}
      data-status={e.status ?? ''}
      data-transaction-id={e.transaction_id ?? ''}
    >
      <span role="cell" aria-hidden="true" className="muted">
        ↳
      </span>
      <span title={e.at}>{formatClockMs(e.at)}</span>
      <span title={e.path ?? undefined}>{routeOf(e.path)}</span>
      <span className="feed-outcome">{e.outcome ?? '—'}</span>
      <span className="feed-tx muted" title={e.transaction_id ?? undefined}>
        {e.transaction_id}
      </span>
      <span>{e.status ?? '—'}</span>
      <span className="muted" title={e.remote ?? undefined}>
        {e.remote ?? ''}
      </span>
    </div>
  );
}
