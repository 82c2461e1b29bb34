// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ConsoleError } from '../../../electron/contract';
import type { EventStreamState } from '../../../renderer/api/event-stream';
import type { ConsoleClient } from '../../../renderer/api/client';
import { App } from '../../../renderer/app/app';
import { useSessionStore } from '../../../renderer/app/session-store';
import { resetInspectorStore } from '../../../renderer/features/inspector/inspector-store';
import { fakeApi } from '../support/render';

function statusStore(initial: EventStreamState['status']) {
  let state: EventStreamState = { status: initial, since: null, attempts: 0 };
  const watchers = new Set<() => void>();
  return {
    getSnapshot: () => state,
    subscribe: (fn: () => void) => {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    set(status: EventStreamState['status']) {
      state = { ...state, status };
      for (const w of watchers) w();
    },
  };
}

beforeEach(() => {
  resetInspectorStore();
  useSessionStore.setState({ accessRejected: null });
  window.location.hash = '';
});
afterEach(() => cleanup());

describe('App shell', () => {
  it('without an access token shows how to get one, never a blank page', () => {
    render(<App resolution={{ kind: 'no-token' }} />);
    const page = screen.getByTestId('access-problem');
    expect(page.getAttribute('data-reason')).toBe('missing');
    expect(page.textContent).toContain('dets-console serve');
    expect(page.textContent).toContain('access token');
  });

  it('switches to the token help page when the host answers UNAUTHORIZED', async () => {
    const { api } = fakeApi();
    (api.app.info as unknown as { mockRejectedValue(e: unknown): void }).mockRejectedValue(
      new ConsoleError('UNAUTHORIZED', 'missing or wrong access token'),
    );
    render(
      <App
        resolution={{ kind: 'ready', client: { api, mode: 'browser', events: statusStore('connected') } }}
      />,
    );
    const page = await screen.findByTestId('access-problem');
    expect(page.getAttribute('data-reason')).toBe('rejected');
    expect(page.textContent).toContain('missing or wrong access token');
  });

  it('shows the host mode and the live event stream state as it changes', async () => {
    const { api } = fakeApi();
    const events = statusStore('connecting');
    const client: ConsoleClient = { api, mode: 'browser', events };
    render(<App resolution={{ kind: 'ready', client }} />);
    const status = screen.getByTestId('connection-status');
    expect(status.getAttribute('data-mode')).toBe('browser');
    expect(status.textContent).toContain('Browser mode');
    expect(status.getAttribute('data-status')).toBe('connecting');
    act(() => events.set('disconnected'));
    expect(status.getAttribute('data-status')).toBe('disconnected');
    expect(status.textContent).toContain('events disconnected');
    act(() => events.set('connected'));
    expect(status.textContent).toContain('events live');
    await screen.findByText(/0\.0\.0-test/);
  });

  it('shows the event store failing or damaged in the header, kept current by store.changed', async () => {
    const { api } = fakeApi();
    const failing = {
      state: 'failing' as const,
      file: '/tmp/x/console.db',
      since: '2026-01-01T00:00:00.000Z',
      detail: 'database or disk is full',
    };
    (api.events.health as unknown as { mockResolvedValue(v: unknown): void }).mockResolvedValue(failing);
    const listeners = new Map<string, (payload: unknown) => void>();
    (api as unknown as { on: unknown }).on = (event: string, l: (payload: unknown) => void) => {
      listeners.set(event, l);
      return () => listeners.delete(event);
    };
    render(
      <App
        resolution={{ kind: 'ready', client: { api, mode: 'browser', events: statusStore('connected') } }}
      />,
    );
    const pill = await screen.findByTestId('store-health-pill');
    expect(pill.textContent).toContain('storage failing');
    expect(pill.getAttribute('title')).toContain('database or disk is full');
    act(() => listeners.get('store.changed')?.({ ...failing, state: 'ok', detail: null }));
    await waitFor(() => expect(screen.queryByTestId('store-health-pill')).toBeNull());
    act(() =>
      listeners.get('store.changed')?.({ ...failing, state: 'damaged', detail: 'quick_check: page 7' }),
    );
    expect((await screen.findByTestId('store-health-pill')).getAttribute('title')).toContain('store recover');
  });

  it('opens on the walkthrough (the home page of a new profile) when no page is in the URL', () => {
    const { api } = fakeApi();
    render(
      <App
        resolution={{ kind: 'ready', client: { api, mode: 'desktop', events: statusStore('connected') } }}
      />,
    );
    expect(screen.getByTestId('nav-walkthrough').getAttribute('aria-current')).toBe('page');
    expect(screen.getByTestId('nav-inspector').getAttribute('aria-current')).toBeNull();
  });

  it('lists the pages in a labelled nav, marks the current one, and Ctrl+K or "/" focus the token input', async () => {
    window.location.hash = '#/inspector';
    const { api } = fakeApi();
    render(
      <App
        resolution={{ kind: 'ready', client: { api, mode: 'desktop', events: statusStore('connected') } }}
      />,
    );
    const nav = screen.getByRole('navigation', { name: 'Pages' });
    const link = screen.getByTestId('nav-inspector');
    expect(nav.contains(link)).toBe(true);
    const sandbox = screen.getByTestId('nav-sandbox');
    expect(nav.contains(sandbox)).toBe(true);
    expect(sandbox.getAttribute('href')).toBe('#/sandbox');
    expect(sandbox.getAttribute('aria-current')).toBeNull();
    expect(link.getAttribute('aria-current')).toBe('page');
    const input = await screen.findByTestId('token-input');
    expect(document.activeElement).not.toBe(input);

    fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
    await waitFor(() => expect(document.activeElement).toBe(input));

    link.focus();
    fireEvent.keyDown(link, { key: '/' });
    await waitFor(() => expect(document.activeElement).toBe(input));

    // "/" typed inside a text field is text, not a shortcut.
    const obj = screen.getByTestId('expected-obj-input');
    obj.focus();
    fireEvent.keyDown(obj, { key: '/' });
    expect(document.activeElement).toBe(obj);
  });
});
