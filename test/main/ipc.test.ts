import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ipcMain, BrowserWindow } from './fake-electron';
import { METHOD_NAMES, eventChannel, methodChannel } from '../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { createOriginPolicy } from '../../electron/main/app-origin';
import { forwardEvents, registerIpcHandlers } from '../../electron/main/ipc';
import { APP_NAME } from '../../electron/core/version';

vi.mock('electron', () => import('./fake-electron'));

let dataDir: string;
let core: ConsoleCore;
let unregister: () => void;
const policy = createOriginPolicy();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dets-ipc-'));
  core = await createConsoleCore({ dataDir, host: 'desktop' });
});
afterAll(async () => {
  await core.close();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});
beforeEach(() => {
  unregister = registerIpcHandlers(ipcMain, core, policy);
});
afterEach(() => {
  unregister();
  vi.restoreAllMocks();
});

describe('IPC handlers', () => {
  it('registers a handler for exactly every contract method, and nothing else', () => {
    expect([...ipcMain.handlers.keys()].sort()).toEqual(METHOD_NAMES.map(methodChannel).sort());
    for (const channel of ipcMain.handlers.keys()) expect(channel).toMatch(/^app:[a-z]+\.[a-zA-Z]+$/);
  });

  it('removes them all again', () => {
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
    unregister = registerIpcHandlers(ipcMain, core, policy);
  });

  it('refuses foreign sender frames with FORBIDDEN, without calling the core', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const foreign = [
      'https://evil.example/',
      'file:///home/user/index.html',
      'http://127.0.0.1:5173/', // the dev server, while none is trusted
      'app://evil/index.html',
      'app://console:8080/index.html',
      'app://user@console/index.html',
      'about:blank',
      '',
      null, // the frame is gone
    ];
    for (const url of foreign) {
      const answer = await ipcMain.invokeFrom(url, methodChannel('app.info'));
      expect(answer, String(url)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('answers the app page with the real core envelope', async () => {
    const answer = await ipcMain.invokeFrom('app://console/index.html', methodChannel('app.info'));
    expect(answer).toEqual({
      ok: true,
      value: { name: APP_NAME, version: expect.any(String), host: 'desktop', dataDir, listeners: {} },
    });
  });

  it('trusts the dev server origin only when it is configured', async () => {
    const devUnregister = (() => {
      unregister();
      return registerIpcHandlers(ipcMain, core, createOriginPolicy('http://127.0.0.1:5173/'));
    })();
    try {
      const ok = await ipcMain.invokeFrom('http://127.0.0.1:5173/#/inspector', methodChannel('app.info'));
      expect(ok).toMatchObject({ ok: true, value: { host: 'desktop' } });
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      const other = await ipcMain.invokeFrom('http://127.0.0.1:5174/', methodChannel('app.info'));
      expect(other).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    } finally {
      devUnregister();
      unregister = registerIpcHandlers(ipcMain, core, policy);
    }
  });

  it('answers a bad argument with BAD_ARGUMENT data instead of throwing', async () => {
    const answer = await ipcMain.invokeFrom('app://console/', methodChannel('app.info'), { unexpected: 1 });
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT', message: expect.stringContaining('app.info') },
    });
    const inspect = await ipcMain.invokeFrom('app://console/', methodChannel('inspector.inspect'), 42);
    expect(inspect).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT' } });
  });

  it('turns even a throwing core into error data', async () => {
    vi.spyOn(core, 'dispatch').mockRejectedValueOnce(new Error('boom'));
    const answer = await ipcMain.invokeFrom('app://console/', methodChannel('app.info'));
    expect(answer).toEqual({ ok: false, error: { code: 'INTERNAL', message: 'boom' } });
  });
});

describe('event forwarding', () => {
  it('sends core events to the window on their contract channel', () => {
    const contents = new BrowserWindow({}).webContents;
    contents.url = 'app://console/index.html';
    const stop = forwardEvents(core.events, contents, policy);
    const notice = { at: new Date().toISOString(), level: 'info' as const, message: 'hello' };
    core.events.emit('app.noticed', notice);
    expect(contents.sent).toEqual([[eventChannel('app.noticed'), notice]]);
    stop();
    core.events.emit('app.noticed', notice);
    expect(contents.sent).toHaveLength(1);
  });

  it('sends nothing to a foreign page, and stops when the contents are destroyed', () => {
    const contents = new BrowserWindow({}).webContents;
    forwardEvents(core.events, contents, policy);
    const notice = { at: new Date().toISOString(), level: 'warning' as const, message: 'x' };
    contents.url = 'https://evil.example/';
    core.events.emit('app.noticed', notice);
    expect(contents.sent).toEqual([]);

    contents.url = 'app://console/index.html';
    contents.destroy();
    core.events.emit('app.noticed', notice);
    expect(contents.sent).toEqual([]);
    expect(contents.listenerCount('destroyed')).toBe(0);
  });
});
