// @vitest-environment jsdom
/**
 * Loaded (renderer/ui/loaded.tsx): a query's error wins over stale data, data is handed to
 * `children`, and nothing yet shows the loading line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { Loaded, type QueryState } from '../../../renderer/ui/loaded';

afterEach(() => cleanup());

function view(query: QueryState<string[]>) {
  return (
    <Loaded query={query} errorTitle="Rows unavailable" errorTestId="rows-error" loading="Loading rows…">
      {(rows) => <p data-testid="rows">{rows.join(',')}</p>}
    </Loaded>
  );
}

describe('Loaded', () => {
  it('shows loading, then the data, then an error even over data it had', () => {
    const { rerender } = render(view({ data: undefined, error: null }));
    expect(screen.getByText('Loading rows…').className).toBe('muted');
    expect(screen.queryByTestId('rows')).toBeNull();

    rerender(view({ data: [], error: null }));
    expect(screen.getByTestId('rows').textContent).toBe('');
    expect(screen.queryByText('Loading rows…')).toBeNull();

    rerender(view({ data: ['a', 'b'], error: new Error('store closed') }));
    expect(screen.queryByTestId('rows')).toBeNull();
    expect(screen.getByTestId('rows-error').textContent).toContain('store closed');
    expect(screen.getByTestId('rows-error').textContent).toContain('Rows unavailable');
  });
});
