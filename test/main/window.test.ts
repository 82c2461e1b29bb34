import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow, fakeEvent, shell, type FakeWebContents } from './fake-electron';
import { createOriginPolicy } from '../../electron/main/app-origin';
import { openExternalUrl } from '../../electron/main/external';
import { CONTENT_SECURITY_POLICY } from '../../electron/main/protocol';
import { createMainWindow, guardAllWebContents } from '../../electron/main/window';

vi.mock('electron', () => import('./fake-electron'));

const PRELOAD = '/app/dist/preload/preload.cjs';

function makeWindow(policy = createOriginPolicy(), devTools = true) {
  const openExternal = vi.fn((url: string) => openExternalUrl(shell, url));
  const win = createMainWindow({
    preloadPath: PRELOAD,
    policy,
    openExternal,
    devTools,
  }) as unknown as BrowserWindow;
  return { win, contents: win.webContents, openExternal };
}

beforeEach(() => {
  shell.openExternal.mockClear();
});

describe('the window factory', () => {
  it('passes exactly the secure webPreferences, with the preload', () => {
    const { win } = makeWindow();
    expect(win.options.webPreferences).toEqual({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      devTools: true,
      disableBlinkFeatures: 'Auxclick',
      preload: PRELOAD,
    });
  });

  it('creates the packaged app’s window without DevTools', () => {
    const { win } = makeWindow(createOriginPolicy(), false);
    expect(win.options.webPreferences).toMatchObject({ devTools: false, sandbox: true });
  });

  it('shows the window only once it is ready', () => {
    const { win } = makeWindow();
    expect(win.options.show).toBe(false);
    expect(win.visible).toBe(false);
    win.emit('ready-to-show');
    expect(win.visible).toBe(true);
  });

  it('prevents every navigation and redirect, even to the app itself', () => {
    const { contents } = makeWindow();
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://console/index.html']) {
      const nav = fakeEvent();
      contents.emit('will-navigate', nav, url);
      expect(nav.defaultPrevented, url).toBe(true);
      const redirect = fakeEvent();
      contents.emit('will-redirect', redirect, url);
      expect(redirect.defaultPrevented, url).toBe(true);
    }
  });

  it('denies window.open, routing http(s) URLs to openExternal and dropping the rest', () => {
    const { contents, openExternal } = makeWindow();
    const open = (url: string) => contents.windowOpenHandler!({ url });

    expect(open('https://docs.example/guide?x=1')).toEqual({ action: 'deny' });
    expect(open('http://127.0.0.1:7301/user_auth')).toEqual({ action: 'deny' });
    expect(shell.openExternal.mock.calls.map(([u]) => u)).toEqual([
      'https://docs.example/guide?x=1',
      'http://127.0.0.1:7301/user_auth',
    ]);

    shell.openExternal.mockClear();
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-msdt:/id',
      'app://console/x',
      'not a url',
    ]) {
      expect(open(url), url).toEqual({ action: 'deny' });
    }
    expect(shell.openExternal).not.toHaveBeenCalled();
    expect(openExternal).toHaveBeenCalledTimes(8);
  });

  it('prevents webview attachment', () => {
    const { contents } = makeWindow();
    const event = fakeEvent();
    contents.emit('will-attach-webview', event, {}, { src: 'https://evil.example/' });
    expect(event.defaultPrevented).toBe(true);
  });

  it('answers false to every permission request and check', () => {
    const { contents } = makeWindow();
    const session = contents.session;
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'hid',
    ]) {
      const callback = vi.fn();
      session.permissionRequestHandler!(contents, permission, callback, {});
      expect(callback, permission).toHaveBeenCalledWith(false);
      expect(session.permissionCheckHandler!(contents, permission, 'app://console', {}), permission).toBe(
        false,
      );
    }
    expect(session.devicePermissionHandler!({ deviceType: 'usb', origin: 'app://console' })).toBe(false);
  });

  it('sets the strict CSP on every response of the session, replacing any other', () => {
    const { contents } = makeWindow();
    const answer = vi.fn();
    contents.session.headersListener!(
      {
        url: 'app://console/index.html',
        responseHeaders: { 'content-security-policy': ['default-src *'], 'X-Other': ['1'] },
      },
      answer,
    );
    expect(answer).toHaveBeenCalledWith({
      responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });

  it('relaxes the CSP only for a trusted dev server page', () => {
    const { contents } = makeWindow(createOriginPolicy('http://127.0.0.1:5173/'));
    const csp = (url: string) => {
      let headers: Record<string, string[]> | undefined;
      contents.session.headersListener!({ url, responseHeaders: {} }, (r) => (headers = r.responseHeaders));
      return headers!['Content-Security-Policy']![0]!;
    };
    expect(csp('http://127.0.0.1:5173/')).toContain('ws://127.0.0.1:5173');
    expect(csp('app://console/index.html')).toBe(CONTENT_SECURITY_POLICY);
    expect(csp('https://evil.example/')).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe('guardAllWebContents', () => {
  it('guards web contents the factory did not create', () => {
    const app = { on: vi.fn() };
    guardAllWebContents(app as never, (url) => openExternalUrl(shell, url));
    const [eventName, listener] = app.on.mock.calls[0] as [string, (e: unknown, c: FakeWebContents) => void];
    expect(eventName).toBe('web-contents-created');

    const contents = new BrowserWindow({}).webContents;
    listener({}, contents);
    const nav = fakeEvent();
    contents.emit('will-navigate', nav, 'https://evil.example/');
    expect(nav.defaultPrevented).toBe(true);
    expect(contents.windowOpenHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    const attach = fakeEvent();
    contents.emit('will-attach-webview', attach);
    expect(attach.defaultPrevented).toBe(true);
  });
});
