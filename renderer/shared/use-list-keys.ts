import { useEffect, useRef, type RefObject } from 'react';

/**
 * j/k move a list's cursor, Enter opens the row under it, Escape closes what is open, as soon as
 * the page has focus (issue 13 item 1: no Tab presses first). The keys are heard on the document,
 * so they work whatever holds focus, except where they mean something else: typing in a field,
 * and Enter on a button or link. The arrow keys move the cursor only while the list itself has
 * focus, so elsewhere they still scroll the page. With `onToggle`, x selects (or unselects) the
 * row under the cursor (issue 28 item 2: row selection without the mouse). With `onExpand`, the
 * right and left arrows open and close the group under the cursor while the list has focus, as
 * in a tree (issue 27 item 3: a transaction's notifications grouped under it).
 */
export function useListKeys({
  ids,
  cursorId,
  listRef,
  onMove,
  onOpen,
  onClose,
  onToggle,
  onExpand,
}: {
  /** The rows' ids in order: read on a key press only (a list of 20,000 is not copied per render). */
  ids: () => readonly string[];
  cursorId: string | null;
  listRef: RefObject<HTMLElement | null>;
  onMove: (id: string) => void;
  onOpen: (id: string) => void;
  onClose: () => void;
  onToggle?: (id: string) => void;
  /** ArrowRight (open) and ArrowLeft (close) on the cursor row, in the list: a tree's groups. */
  onExpand?: (id: string, open: boolean) => void;
}): void {
  const latest = useRef({ ids, cursorId, onMove, onOpen, onClose, onToggle, onExpand });
  useEffect(() => {
    latest.current = { ids, cursorId, onMove, onOpen, onClose, onToggle, onExpand };
  });
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const target = ev.target instanceof HTMLElement ? ev.target : null;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (target?.closest('[role="dialog"]')) return;
      const {
        ids: idsOf,
        cursorId: cursor,
        onMove: move,
        onOpen: open,
        onClose: close,
        onToggle: toggle,
        onExpand: expand,
      } = latest.current;
      const list = idsOf();
      const inList = !!target && !!listRef.current?.contains(target);
      const at = cursor === null ? -1 : list.indexOf(cursor);
      const down = ev.key === 'j' || (inList && ev.key === 'ArrowDown');
      const up = ev.key === 'k' || (inList && ev.key === 'ArrowUp');
      if ((down || up) && list.length > 0) {
        ev.preventDefault();
        move(list[down ? Math.min(list.length - 1, at + 1) : Math.max(0, at - 1)]!);
        // The list takes focus, so the next Enter opens the row rather than a focused nav link.
        if (!inList) listRef.current?.focus({ preventScroll: true });
      } else if (ev.key === 'Enter' && list.length > 0 && !target?.closest('button, a, summary')) {
        ev.preventDefault();
        open(list[Math.max(0, at)]!);
      } else if (ev.key === 'Escape') {
        close();
      } else if (inList && expand && at >= 0 && (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft')) {
        ev.preventDefault();
        expand(list[at]!, ev.key === 'ArrowRight');
      } else if (ev.key === 'x' && toggle && at >= 0) {
        ev.preventDefault();
        toggle(list[at]!);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [listRef]);
}
