import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES, methodChannel } from '../../electron/contract';
import { fakeEvent } from './fake-electron';
import type * as FakeElectron from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

type Fake = typeof FakeElectron;

let dataDir: string;

/** Loads main.ts afresh, as a new process would, against a fresh fake Electron. */
async function launch(setup?: (electron: Fake) => void): Promise<Fake> {
  vi.resetModules();
  const electron = (await import('electron')) as unknown as Fake;
  electron.resetFakeElectron();
  setup?.(electron);
  await import('../../electron/main/main');
  return electron;
}

async function ready(electron: Fake) {
  electron.app.becomeReady();
  await vi.waitFor(() => expect(electron.BrowserWindow.instances).toHaveLength(1));
  return electron.BrowserWindow.instances[0]!;
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dets-main-'));
  vi.stubEnv('DETS_DATA_DIR', dataDir);
  vi.stubEnv('VITE_DEV_SERVER_URL', '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the desktop lifecycle', () => {
  it('registers the scheme, sandboxes every renderer and moves the profile before ready', async () => {
    const { app, protocol } = await launch();
    expect(protocol.privileged).toEqual([expect.objectContaining({ scheme: 'app', appWasReady: false })]);
    expect(app.enableSandbox).toHaveBeenCalled();
    expect(app.getPath('userData')).toBe(dataDir);
    expect(app.requestSingleInstanceLock).toHaveBeenCalled();
  });

  it('on ready: serves the renderer, wires IPC to a core on the profile, opens the app page', async () => {
    const electron = await launch();
    const win = await ready(electron);
    expect(win.loadedUrl).toBe('app://console/index.html');
    expect(String((win.options.webPreferences as { preload: string }).preload)).toMatch(
      /[/\\]preload[/\\]preload\.cjs$/,
    );
    expect(electron.protocol.handlers.has('app')).toBe(true);
    expect([...electron.ipcMain.handlers.keys()].sort()).toEqual(METHOD_NAMES.map(methodChannel).sort());
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalled();
    const info = await electron.ipcMain.invokeFrom('app://console/index.html', methodChannel('app.info'));
    expect(info).toMatchObject({ ok: true, value: { host: 'desktop', dataDir } });
  });

  it('focuses the existing window when a second instance starts', async () => {
    const electron = await launch();
    const win = await ready(electron);
    win.minimized = true;
    electron.app.emit('second-instance', fakeEvent(), ['dets-console'], '/');
    expect(win.minimized).toBe(false);
    expect(win.focused).toBe(true);
    expect(electron.BrowserWindow.instances).toHaveLength(1);
  });

  it('quits at once when another instance holds the profile', async () => {
    const electron = await launch((e) => {
      e.app.hasLock = false;
    });
    expect(electron.app.quit).toHaveBeenCalled();
    electron.app.becomeReady();
    await new Promise((r) => setTimeout(r, 20));
    expect(electron.BrowserWindow.instances).toHaveLength(0);
  });

  it('closes the core before quitting', async () => {
    const electron = await launch();
    await ready(electron);
    const willQuit = fakeEvent();
    electron.app.emit('will-quit', willQuit);
    expect(willQuit.defaultPrevented).toBe(true);
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled());
    const again = fakeEvent();
    electron.app.emit('will-quit', again);
    expect(again.defaultPrevented).toBe(false);
  });

  it('loads the dev server only in an unpackaged app', async () => {
    vi.stubEnv('VITE_DEV_SERVER_URL', 'http://127.0.0.1:5173/');
    const dev = await launch();
    expect((await ready(dev)).loadedUrl).toBe('http://127.0.0.1:5173/');

    const packaged = await launch((e) => {
      e.app.isPackaged = true;
    });
    expect((await ready(packaged)).loadedUrl).toBe('app://console/index.html');
  });
});
