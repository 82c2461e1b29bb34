// @vitest-environment jsdom
/**
 * The page frame (renderer/ui/page.tsx): the page element carries the test id and `data-state`
 * tests wait on, under its heading and summary; a live panel is named by its title and its dot
 * says whether new entries will appear.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { LivePanel, Page, RefreshButton } from '../../../renderer/ui/page';

afterEach(() => cleanup());

describe('Page', () => {
  it('puts the state on the page element and the summary and actions in its head', () => {
    let refreshed = 0;
    render(
      <Page
        className="t-page"
        testId="t-page"
        state="ready"
        title="Things"
        intro="All the things."
        actions={<RefreshButton onClick={() => refreshed++} testId="t-refresh" />}
      >
        <p>body</p>
      </Page>,
    );
    const page = screen.getByTestId('t-page');
    expect(page.className).toBe('t-page');
    expect(page.getAttribute('data-state')).toBe('ready');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Things');
    expect(page.querySelector('.page-summary')?.textContent).toBe('All the things.');
    fireEvent.click(screen.getByTestId('t-refresh'));
    expect(refreshed).toBe(1);
    expect(screen.getByText('body').parentElement).toBe(page);
  });
});

describe('LivePanel', () => {
  it('is named by its title and its dot tells live from not live', () => {
    const { rerender } = render(
      <LivePanel id="t-title" className="t-list" title="Traces" live what="traces" liveTestId="t-live">
        <p>rows</p>
      </LivePanel>,
    );
    const region = screen.getByRole('region', { name: /Traces/ });
    expect(region.className).toBe('panel t-list');
    expect(screen.getByTestId('t-live').textContent).toBe('live');
    expect(screen.getByTestId('t-live').getAttribute('title')).toBe('New traces appear as they happen');
    rerender(
      <LivePanel
        id="t-title"
        className="t-list"
        title="Traces"
        live={false}
        what="traces"
        liveTestId="t-live"
      >
        <p>rows</p>
      </LivePanel>,
    );
    expect(screen.getByTestId('t-live').textContent).toBe('not live');
    expect(screen.getByTestId('t-live').getAttribute('title')).toBe(
      'Live events are not flowing: press Refresh',
    );
  });
});
