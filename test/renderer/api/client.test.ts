// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleError, type ConsoleApi } from '../../../electron/contract';
import { TOKEN_STORAGE_KEY } from '../../../renderer/api/access-token';
import { resolveClient } from '../../../renderer/api/client';

afterEach(() => {
  delete window.detsConsole;
  sessionStorage.clear();
  history.replaceState(null, '', '/');
});

describe('resolveClient', () => {
  it('uses the preload facade in the desktop app, reviving bridged error data into ConsoleErrors', async () => {
    const on = () => () => undefined;
    const preload = {
      on,
      // What arrives through contextBridge: plain error data, not an Error.
      app: { info: () => Promise.reject({ code: 'FORBIDDEN', message: 'refused' }) },
    } as unknown as ConsoleApi;
    window.detsConsole = preload;
    const r = resolveClient(window);
    expect(r.kind).toBe('ready');
    if (r.kind === 'ready') {
      expect(r.client.mode).toBe('desktop');
      expect(r.client.api.on).toBe(on);
      const err = await r.client.api.app.info().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConsoleError);
      expect(err).toMatchObject({ code: 'FORBIDDEN', message: 'refused' });
      expect(r.client.events.getSnapshot().status).toBe('connected');
    }
  });

  it('in a browser takes the token from the address bar and removes it from there', () => {
    history.replaceState(null, '', '/?token=s3cret#/inspector');
    const r = resolveClient(window);
    expect(r.kind).toBe('ready');
    if (r.kind === 'ready') expect(r.client.mode).toBe('browser');
    expect(window.location.search).toBe('');
    expect(window.location.hash).toBe('#/inspector');
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('s3cret');
  });

  it('in a browser tab without a token relies on the host cookie (no token header)', async () => {
    const r = resolveClient(window);
    expect(r.kind).toBe('ready');
    if (r.kind === 'ready') expect(r.client.mode).toBe('browser');
  });
});
