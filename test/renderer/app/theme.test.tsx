// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ConsoleClient } from '../../../renderer/api/client';
import { App } from '../../../renderer/app/app';
import { startTheme, useThemeStore } from '../../../renderer/app/theme';
import { fakeApi } from '../support/render';

let stop: () => void = () => undefined;
beforeEach(() => {
  window.localStorage.clear();
  useThemeStore.setState({ theme: 'system' });
  delete document.documentElement.dataset.theme;
  window.location.hash = '';
  stop = startTheme();
});
afterEach(() => {
  stop();
  cleanup();
});

const html = () => document.documentElement;

function renderApp() {
  const { api } = fakeApi();
  const snapshot = { status: 'connected', since: null, attempts: 0 } as const;
  const events = { getSnapshot: () => snapshot, subscribe: () => () => undefined };
  const client = { api, mode: 'desktop', events } as unknown as ConsoleClient;
  render(<App resolution={{ kind: 'ready', client }} />);
}

describe('theme switch', () => {
  it('starts on "system" (the OS decides, no data-theme) and pins light or dark from the header', () => {
    renderApp();
    const select = screen.getByTestId('theme-switch') as HTMLSelectElement;
    expect(select.value).toBe('system');
    expect(html().hasAttribute('data-theme')).toBe(false);

    fireEvent.change(select, { target: { value: 'dark' } });
    expect(html().dataset.theme).toBe('dark');
    expect(JSON.parse(window.localStorage.getItem('dets-console.theme')!).state).toEqual({ theme: 'dark' });

    fireEvent.change(select, { target: { value: 'light' } });
    expect(html().dataset.theme).toBe('light');

    fireEvent.change(select, { target: { value: 'system' } });
    expect(html().hasAttribute('data-theme')).toBe(false);
  });

  it('applies the stored choice on start, and ignores a stored value that is not a theme', async () => {
    stop();
    window.localStorage.setItem(
      'dets-console.theme',
      JSON.stringify({ state: { theme: 'dark' }, version: 1 }),
    );
    await useThemeStore.persist.rehydrate();
    stop = startTheme();
    expect(html().dataset.theme).toBe('dark');

    window.localStorage.setItem(
      'dets-console.theme',
      JSON.stringify({ state: { theme: 'sepia' }, version: 1 }),
    );
    useThemeStore.setState({ theme: 'system' });
    await useThemeStore.persist.rehydrate();
    expect(useThemeStore.getState().theme).toBe('system');
    expect(html().hasAttribute('data-theme')).toBe(false);
  });
});
