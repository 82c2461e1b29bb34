/**
 * A table of records: one header row, one row per record, and an optional row-action bar in the
 * last column (its header read to screen readers only). What each hand-made table repeated (the
 * caption, the `scope="col"` headers, the `.row-actions` bar in its own cell) lives here once;
 * the pages keep what is theirs: their columns and the buttons of each row.
 */
import type { HTMLAttributes, ReactNode } from 'react';
import { formatLocal } from '../shared/format';

/** One column: its header and how a record fills its cell. */
export interface Column<R> {
  header: ReactNode;
  /** The cell's content for one record. */
  cell: (row: R, index: number) => ReactNode;
  /** Attributes of the `<td>` (class, title, data-testid), per record. */
  cellProps?: (row: R) => HTMLAttributes<HTMLTableCellElement> & Record<`data-${string}`, unknown>;
  /** The cell names its row (`<th scope="row">`): a table of labelled values. */
  rowHeader?: boolean;
}

type RowProps = HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, unknown>;

export interface DataTableProps<R> {
  rows: readonly R[];
  columns: ReadonlyArray<Column<R>>;
  rowKey: (row: R) => string;
  /** Attributes of each `<tr>` (class, data-testid, data-*). */
  rowProps?: (row: R, index: number) => RowProps;
  /** The buttons of one row, shown in a `.row-actions` bar in the last column. */
  actions?: (row: R, index: number) => ReactNode;
  /** Read by screen readers only, naming the table. */
  caption?: string;
  /** The header of the action column, for screen readers. */
  actionsLabel?: string;
  className?: string;
  testId?: string;
  /** Rows under the records (`<tfoot>`): a total, a derived figure. */
  footer?: ReactNode;
  /** False for a table whose rows name themselves (a row-header column): no header row. */
  showHeader?: boolean;
}

/**
 * @example
 * <DataTable
 *   rows={keys}
 *   rowKey={(k) => k.kid}
 *   columns={[{ header: 'kid', cell: (k) => <code>{k.kid}</code> }]}
 *   actions={(k) => <button onClick={() => remove(k)}>Delete…</button>}
 *   caption="Signing keys"
 * />
 */
export function DataTable<R>(props: DataTableProps<R>) {
  const {
    rows,
    columns,
    rowKey,
    rowProps,
    actions,
    caption,
    actionsLabel = 'actions',
    showHeader = true,
  } = props;
  return (
    <table className={['data-table', props.className].filter(Boolean).join(' ')} data-testid={props.testId}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      {showHeader ? (
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col">
                {c.header}
              </th>
            ))}
            {actions ? (
              <th scope="col">
                <span className="sr-only">{actionsLabel}</span>
              </th>
            ) : null}
          </tr>
        </thead>
      ) : null}
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row)} {...rowProps?.(row, index)}>
            {columns.map((c, i) => {
              const Cell = c.rowHeader ? 'th' : 'td';
              return (
                <Cell key={i} scope={c.rowHeader ? 'row' : undefined} {...c.cellProps?.(row)}>
                  {c.cell(row, index)}
                </Cell>
              );
            })}
            {actions ? (
              <td>
                <div className="row-actions">{actions(row, index)}</div>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
      {props.footer ? <tfoot>{props.footer}</tfoot> : null}
    </table>
  );
}

/**
 * A column showing one text value, cut to the cell's width with the whole value on hover (the
 * `title`), in monospace for identifiers.
 *
 * @example
 * textColumn<Key>('kid', (k) => k.kid, { mono: true, testId: 'key-kid' })
 */
export function textColumn<R>(
  header: ReactNode,
  value: (row: R) => string,
  options: { mono?: boolean; testId?: string } = {},
): Column<R> {
  return {
    header,
    cell: value,
    cellProps: (row) => ({
      className: options.mono ? 'mono cell-cut' : 'cell-cut',
      title: value(row),
      ...(options.testId ? { 'data-testid': options.testId } : {}),
    }),
  };
}

/**
 * A column showing one instant in local time, with the ISO value on hover (the `title`); a record
 * without the instant shows a muted dash.
 *
 * @example
 * timeColumn<Key>('retires', (k) => k.retires_at)
 */
export function timeColumn<R>(header: ReactNode, value: (row: R) => string | null | undefined): Column<R> {
  return {
    header,
    cell: (row) => {
      const iso = value(row);
      return iso ? (formatLocal(iso) ?? iso) : <span className="muted">—</span>;
    },
    cellProps: (row) => ({ title: value(row) ?? undefined }),
  };
}

/**
 * A small button of a row-action bar; `tone` marks the row's main step (`primary`) or a
 * destructive one (`danger`, quiet until hovered).
 *
 * @example
 * <RowButton onClick={() => remove(k)} tone="danger" testId="key-delete">Delete…</RowButton>
 */
export function RowButton({
  onClick,
  testId,
  tone,
  disabled,
  title,
  children,
}: {
  onClick: () => void;
  testId: string;
  tone?: 'primary' | 'danger';
  disabled?: boolean;
  title?: string;
  children: ReactNode;
}) {
  const toneClass = tone === 'primary' ? ' btn-primary' : tone === 'danger' ? ' btn-quiet-danger' : '';
  return (
    <button
      type="button"
      className={`btn btn-small${toneClass}`}
      onClick={onClick}
      disabled={disabled}
      title={title}
      data-testid={testId}
    >
      {children}
    </button>
  );
}
