// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ConsoleError, type MethodOutput } from '../../../electron/contract';
import type { EventStreamState } from '../../../renderer/api/event-stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOKEN_STORAGE_KEY } from '../../../renderer/api/access-token';
import { browserClient, type ConsoleClient } from '../../../renderer/api/client';
import { AccessProblem } from '../../../renderer/app/access-problem';
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

/** A ready client over `api`; these tests start no download. */
function testClient(
  api: ConsoleClient['api'],
  mode: ConsoleClient['mode'],
  events: ConsoleClient['events'],
): ConsoleClient {
  return { api, mode, events, download: () => Promise.reject(new Error('no download in this test')) };
}

/** The app, ready, over `api`. */
function renderReady(api: ReturnType<typeof fakeApi>['api'], mode: 'desktop' | 'browser' = 'desktop') {
  return render(
    <App resolution={{ kind: 'ready', client: testClient(api, mode, statusStore('connected')) }} />,
  );
}

/** A fake API whose events.health answers `health`. */
function apiWithHealth(health: MethodOutput<'events.health'>) {
  const fake = fakeApi();
  fake.handlers.events.health.mockResolvedValue(health);
  return fake;
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

  it('switches to the token help page when the host refuses the token (HTTP 401)', async () => {
    // A real loopback server playing a host that restarted: every /api request gets its 401.
    const host = createServer((_req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ ok: false, error: { code: 'UNAUTHORIZED', message: 'missing or wrong token' } }),
      );
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    // Answers still on their way after this test must not reach the next one's store.
    let live = true;
    try {
      const client = browserClient({
        baseUrl: `http://127.0.0.1:${(host.address() as AddressInfo).port}`,
        token: 'stale',
        liveEvents: false,
        onUnauthorized: (m) => live && useSessionStore.getState().rejectAccess(m),
      });
      render(<App resolution={{ kind: 'ready', client }} />);
      const page = await screen.findByTestId('access-problem');
      expect(page.getAttribute('data-reason')).toBe('rejected');
      expect(page.textContent).toContain('missing or wrong token');
    } finally {
      live = false;
      host.closeAllConnections();
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });

  it('stays on its page when the core itself answers UNAUTHORIZED (the sandbox refusing a bank token)', async () => {
    const { api, handlers } = fakeApi();
    handlers.app.info.mockRejectedValue(new ConsoleError('UNAUTHORIZED', 'signature: signed by another key'));
    renderReady(api, 'browser');
    await waitFor(() => expect(handlers.app.info).toHaveBeenCalled());
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('access-problem')).toBeNull();
    expect(screen.getByTestId('connection-status')).toBeTruthy();
  });

  it('comes back by itself once the access link is opened in another tab', () => {
    const onNewToken = vi.fn();
    render(<AccessProblem reason="rejected" detail="stale" onNewToken={onNewToken} />);
    window.dispatchEvent(new StorageEvent('storage', { key: 'unrelated', newValue: 'x' }));
    expect(onNewToken).not.toHaveBeenCalled();
    window.dispatchEvent(new StorageEvent('storage', { key: TOKEN_STORAGE_KEY, newValue: 'fresh' }));
    expect(onNewToken).toHaveBeenCalledTimes(1);
  });

  it('shows the host mode and the live event stream state as it changes', async () => {
    const { api } = fakeApi();
    const events = statusStore('connecting');
    const client = testClient(api, 'browser', events);
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
    const failing = {
      state: 'failing' as const,
      file: '/tmp/x/console.db',
      since: '2026-01-01T00:00:00.000Z',
      detail: 'database or disk is full',
    };
    const { api, emit } = apiWithHealth(failing);
    renderReady(api, 'browser');
    const pill = await screen.findByTestId('store-health-pill');
    expect(pill.textContent).toContain('storage failing');
    expect(pill.getAttribute('title')).toContain('database or disk is full');
    act(() => emit('store.changed', { ...failing, state: 'ok', detail: null }));
    await waitFor(() => expect(screen.queryByTestId('store-health-pill')).toBeNull());
    act(() => emit('store.changed', { ...failing, state: 'damaged', detail: 'quick_check: page 7' }));
    expect((await screen.findByTestId('store-health-pill')).getAttribute('title')).toContain('store recover');
  });

  it('the storage pill opens a dialog saying what happened and, for damage, the recovery command to copy', async () => {
    const writeText = async (t: string) => {
      copied.push(t);
    };
    const copied: string[] = [];
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { api, handlers } = apiWithHealth({
      state: 'damaged',
      file: '/home/ana/My Profile/console.db',
      since: '2026-01-01T00:00:00.000Z',
      detail: 'quick_check: page 7: btreeInitPage() returns error code 11',
    });
    renderReady(api);
    const pill = await screen.findByTestId('store-health-pill');
    expect(pill.tagName).toBe('BUTTON');
    pill.focus(); // as a keyboard user reaches it
    fireEvent.click(pill);
    const dialog = await screen.findByTestId('store-health-dialog');
    expect(dialog.textContent).toContain('/home/ana/My Profile/console.db');
    expect(screen.getByTestId('store-health-detail').textContent).toContain('page 7');
    // The command names this profile's folder, quoted for the shell.
    const command = 'dets-console store recover --data-dir "/home/ana/My Profile"';
    expect(screen.getByTestId('store-health-command').textContent).toBe(command);
    fireEvent.click(screen.getByTestId('store-health-copy'));
    await waitFor(() => expect(copied).toEqual([command]));
    // Or the console does it at its next start.
    const requestRecovery = vi.fn(async () => ({ requested_at: '2026-11-24T10:00:00.000Z' }));
    Object.assign(handlers.events, { requestRecovery });
    fireEvent.click(screen.getByTestId('store-recover-request'));
    const asked = await screen.findByTestId('store-recover-requested');
    expect(requestRecovery).toHaveBeenCalledTimes(1);
    expect(asked.textContent).toContain('2026-11-24T10:00:00.000Z');
    expect(asked.textContent).toContain('Quit DETS Console and open it again');
    // Escape closes it and focus goes back to the pill.
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('store-health-dialog')).toBeNull());
    // React Aria puts focus back on the next animation frame.
    await waitFor(() => expect(document.activeElement).toBe(pill));
  });

  it('the storage pill of failing writes explains that nothing acknowledged is lost and offers no command', async () => {
    const { api } = apiWithHealth({
      state: 'failing',
      file: 'C:\\Users\\ana\\AppData\\Roaming\\DETS Console\\console.db',
      since: '2026-01-01T00:00:00.000Z',
      detail: 'database or disk is full',
    });
    renderReady(api);
    fireEvent.click(await screen.findByTestId('store-health-pill'));
    const dialog = await screen.findByTestId('store-health-dialog');
    expect(dialog.textContent).toContain('database or disk is full');
    expect(dialog.textContent).toContain('nothing already acknowledged is lost');
    expect(screen.queryByTestId('store-health-command')).toBeNull();
  });

  it('the recovery command quotes a Windows profile folder as cmd and PowerShell read it', async () => {
    renderReady(
      apiWithHealth({
        state: 'damaged',
        file: 'C:\\Users\\ana\\AppData\\Roaming\\DETS Console\\console.db',
        since: '2026-01-01T00:00:00.000Z',
        detail: 'quick_check: page 7',
      }).api,
    );
    fireEvent.click(await screen.findByTestId('store-health-pill'));
    expect((await screen.findByTestId('store-health-command')).textContent).toBe(
      'dets-console store recover --data-dir "C:\\Users\\ana\\AppData\\Roaming\\DETS Console"',
    );
  });

  it('opens on the walkthrough (the home page of a new profile) when no page is in the URL', () => {
    const { api } = fakeApi();
    render(
      <App resolution={{ kind: 'ready', client: testClient(api, 'desktop', statusStore('connected')) }} />,
    );
    expect(screen.getByTestId('nav-walkthrough').getAttribute('aria-current')).toBe('page');
    expect(screen.getByTestId('nav-inspector').getAttribute('aria-current')).toBeNull();
  });

  it('lists the pages in a labelled nav, marks the current one, and Ctrl+K or "/" focus the token input', async () => {
    window.location.hash = '#/inspector';
    const { api } = fakeApi();
    render(
      <App resolution={{ kind: 'ready', client: testClient(api, 'desktop', statusStore('connected')) }} />,
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

  it('"/" focuses the page’s own search box where there is one; Ctrl+K still opens the Inspector (issue 26)', async () => {
    const { api } = fakeApi();
    render(
      <App resolution={{ kind: 'ready', client: testClient(api, 'desktop', statusStore('connected')) }} />,
    );
    fireEvent.click(screen.getByTestId('nav-callbacks'));
    // A wait, not a speed check: the page's lazy chunk is transformed on first use, beside the
    // start page's (which now carries the team hub panel).
    const search = await screen.findByTestId('callbacks-search', {}, { timeout: 10_000 });
    screen.getByTestId('nav-callbacks').focus();
    fireEvent.keyDown(window, { key: '/' });
    await waitFor(() => expect(document.activeElement).toBe(search));
    search.blur();
    fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('token-input')));
  });
});
