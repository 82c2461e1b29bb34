// @vitest-environment jsdom
/**
 * DataTable (renderer/ui/data-table.tsx): the table every page listed records in by hand. Column
 * headers are column headers to assistive technology, the action column is named for screen
 * readers only, each row carries the page's attributes and its own action bar, and a text column
 * keeps the whole value on hover when the cell cuts it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { DataTable, textColumn, timeColumn } from '../../../renderer/ui/data-table';

afterEach(() => cleanup());

interface Row {
  id: string;
  name: string;
}
const ROWS: Row[] = [
  { id: 'a', name: 'a-very-long-name-that-the-cell-cuts' },
  { id: 'b', name: 'bee' },
];

function table(onAct: (r: Row) => void = () => undefined) {
  render(
    <DataTable
      rows={ROWS}
      rowKey={(r) => r.id}
      columns={[
        { header: 'id', cell: (r) => <code>{r.id}</code> },
        textColumn<Row>('name', (r) => r.name, { mono: true, testId: 'name' }),
      ]}
      rowProps={(r, i) => ({ 'data-testid': `row-${r.id}`, 'data-index': i })}
      actions={(r) => (
        <button type="button" onClick={() => onAct(r)}>
          Act on {r.id}
        </button>
      )}
      caption="Things"
      testId="things"
    />,
  );
  return screen.getByTestId('things');
}

describe('DataTable', () => {
  it('names the table and its columns, with the action column for screen readers only', () => {
    const t = table();
    expect(screen.getByRole('table', { name: 'Things' })).toBe(t);
    const headers = within(t).getAllByRole('columnheader');
    expect(headers.map((h) => h.textContent)).toEqual(['id', 'name', 'actions']);
    expect(headers.every((h) => h.getAttribute('scope') === 'col')).toBe(true);
    expect(headers[2]!.querySelector('.sr-only')).not.toBeNull();
  });

  it("puts each row's attributes on its <tr> and its actions in a row-action bar that acts on that row", () => {
    const acted: string[] = [];
    table((r) => acted.push(r.id));
    const b = screen.getByTestId('row-b');
    expect(b.getAttribute('data-index')).toBe('1');
    const bar = b.querySelector('.row-actions');
    expect(bar).not.toBeNull();
    fireEvent.click(within(b).getByRole('button', { name: 'Act on b' }));
    expect(acted).toEqual(['b']);
  });

  it('keeps the whole value of a cut text cell in its title', () => {
    table();
    const cell = within(screen.getByTestId('row-a')).getByTestId('name');
    expect(cell.getAttribute('title')).toBe(ROWS[0]!.name);
    expect(cell.className).toBe('mono cell-cut');
  });

  it('has no action column when the page gives no actions', () => {
    render(<DataTable rows={ROWS} rowKey={(r) => r.id} columns={[textColumn<Row>('name', (r) => r.name)]} />);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['name']);
    expect(document.querySelector('.row-actions')).toBeNull();
  });

  it('shows an instant in local time with the ISO value in its title, a dash when there is none, and a non-time as it came', () => {
    interface Stamp {
      id: string;
      at: string | null;
    }
    const iso = '2026-01-02T03:04:05.000Z';
    const rows: Stamp[] = [
      { id: 'set', at: iso },
      { id: 'unset', at: null },
      { id: 'odd', at: 'yesterday' },
    ];
    render(
      <DataTable
        rows={rows}
        rowKey={(r) => r.id}
        columns={[timeColumn<Stamp>('at', (r) => r.at)]}
        rowProps={(r) => ({ 'data-testid': `stamp-${r.id}` })}
      />,
    );
    const cell = (id: string) => screen.getByTestId(`stamp-${id}`).querySelector('td')!;
    expect(cell('set').textContent).toBe(new Date(iso).toLocaleString());
    expect(cell('set').getAttribute('title')).toBe(iso);
    expect(cell('unset').textContent).toBe('—');
    expect(cell('unset').hasAttribute('title')).toBe(false);
    expect(cell('odd').textContent).toBe('yesterday');
    expect(cell('odd').getAttribute('title')).toBe('yesterday');
  });

  it('names each row by its row-header cell and drops the header row when asked', () => {
    render(
      <DataTable
        rows={ROWS}
        rowKey={(r) => r.id}
        columns={[
          { header: 'id', rowHeader: true, cell: (r) => r.id },
          { header: 'name', cell: (r) => r.name },
        ]}
        showHeader={false}
        testId="named"
      />,
    );
    const t = screen.getByTestId('named');
    expect(t.querySelector('thead')).toBeNull();
    expect(within(t).queryAllByRole('columnheader')).toEqual([]);
    const heads = within(t).getAllByRole('rowheader');
    expect(heads.map((h) => [h.tagName, h.getAttribute('scope'), h.textContent])).toEqual([
      ['TH', 'row', 'a'],
      ['TH', 'row', 'b'],
    ]);
    expect(
      within(t)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(ROWS.map((r) => r.name));
  });

  it('puts the footer rows in a <tfoot> after the records, and none without a footer', () => {
    render(
      <DataTable
        rows={ROWS}
        rowKey={(r) => r.id}
        columns={[textColumn<Row>('name', (r) => r.name)]}
        footer={
          <tr data-testid="total">
            <td>2 rows</td>
          </tr>
        }
        testId="footed"
      />,
    );
    const total = screen.getByTestId('total');
    expect(total.parentElement!.tagName).toBe('TFOOT');
    expect(screen.getByTestId('footed').lastElementChild).toBe(total.parentElement);
    cleanup();
    render(<DataTable rows={ROWS} rowKey={(r) => r.id} columns={[textColumn<Row>('name', (r) => r.name)]} />);
    expect(document.querySelector('tfoot')).toBeNull();
  });
});
