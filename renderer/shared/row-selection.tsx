import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

/**
 * Row selection on an event list (issue 28 item 2: "Save as scenario" on a selection), shared by
 * the Callbacks and Notifications pages: a checkbox per row, one to select every row listed, a
 * count. Only rows listed now count as selected: a filter that hides a selected row leaves it out
 * of what is saved (and brings it back when the filter is cleared), so nothing unseen is saved.
 */
export interface RowSelection {
  /** The selected ids that are listed now, in list order. */
  selectedListed: readonly string[];
  isSelected: (id: string) => boolean;
  toggle: (id: string) => void;
  /** Every listed row selected, or (when they all are) none. */
  toggleAll: () => void;
  clear: () => void;
  /** Of the rows listed now: none, some or all selected. */
  allState: 'none' | 'some' | 'all';
}

/**
 * The selection of a list whose rows are `listed` (ids, in order).
 *
 * @example
 * const selection = useRowSelection(shown.map((e) => e.id));
 */
export function useRowSelection(listed: readonly string[]): RowSelection {
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const selectedListed = useMemo(
    () => (selected.size === 0 ? [] : listed.filter((id) => selected.has(id))),
    [listed, selected],
  );
  const toggle = useCallback(
    (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const allState =
    selectedListed.length === 0 ? 'none' : selectedListed.length === listed.length ? 'all' : 'some';
  const toggleAll = useCallback(
    () => setSelected(allState === 'all' ? new Set() : new Set(listed)),
    [allState, listed],
  );
  const clear = useCallback(() => setSelected(new Set()), []);
  const isSelected = useCallback((id: string) => selected.has(id), [selected]);
  return { selectedListed, isSelected, toggle, toggleAll, clear, allState };
}

/**
 * A row's checkbox: a native one (Tab reaches it, Space toggles it), labelled for screen readers;
 * its click does not also open the row.
 */
export function RowCheckbox({
  checked,
  onToggle,
  label,
}: {
  checked: boolean;
  onToggle: () => void;
  label: string;
}) {
  return (
    <input
      type="checkbox"
      className="row-check"
      checked={checked}
      onChange={onToggle}
      onClick={(e) => e.stopPropagation()}
      aria-label={label}
      data-testid="row-select"
    />
  );
}

/**
 * "Select all listed" with the count of selected rows and a way to clear them. The box is
 * indeterminate while some (not all) are selected.
 */
export function SelectionBar({
  selection,
  listed,
  what,
  testId,
}: {
  selection: RowSelection;
  listed: number;
  what: string;
  testId: string;
}) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = selection.allState === 'some';
  }, [selection.allState]);
  const n = selection.selectedListed.length;
  return (
    <span className="selection-bar">
      <label className="selection-all">
        <input
          ref={box}
          type="checkbox"
          checked={selection.allState === 'all'}
          disabled={listed === 0}
          onChange={selection.toggleAll}
          data-testid={`${testId}-select-all`}
        />{' '}
        Select all listed
      </label>
      <span
        className="muted"
        data-testid={`${testId}-selected-count`}
        data-count={n}
        aria-live="polite"
        title={`${what} selected`}
      >
        {n.toLocaleString('en')} of {listed.toLocaleString('en')} selected
      </span>
      {n > 0 ? (
        <button
          type="button"
          className="btn btn-small"
          onClick={selection.clear}
          data-testid={`${testId}-clear-selection`}
        >
          Clear selection
        </button>
      ) : null}
    </span>
  );
}
