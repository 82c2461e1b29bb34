import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Database from 'libsql';
import { METHOD_NAMES, eventChannel, methodChannel } from '../../electron/contract';
import { EventHub } from '../../electron/core/event-hub';
import { openEventStore } from '../../electron/core/store';
import { RECOVERY_REQUEST } from '../../electron/core/store/recover';
import { notification } from '../core/store/helpers';
import { fakeEvent } from './fake-electron';
import { cliTestFile } from '../cli/support/spawn-cli';
import { addMember, hubArgs } from '../cli/support/team';
import type * as FakeElectron from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

type Fake = typeof FakeElectron;

const cli = cliTestFile('dets-main-team-');

let dataDir: string;
let launched: Fake | undefined;

/** Loads main.ts afresh, as a new process would, against a fresh fake Electron. */
async function launch(setup?: (electron: Fake) => void): Promise<Fake> {
  await quit();
  vi.resetModules();
  const electron = (await import('electron')) as unknown as Fake;
  electron.resetFakeElectron();
  setup?.(electron);
  await import('../../electron/main/main');
  launched = electron;
  return electron;
}

/** Quits the launched app, as the OS would: its sandbox listener and core close. */
async function quit(): Promise<void> {
  const electron = launched;
  launched = undefined;
  if (!electron?.app.ready || electron.app.hasLock === false) return;
  const event = fakeEvent();
  electron.app.emit('will-quit', event);
  if (event.defaultPrevented)
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled(), { timeout: 15_000 });
}

const APP_PAGE = 'app://console/index.html';

async function appInfo(electron: Fake) {
  const answer = (await electron.ipcMain.invokeFrom(APP_PAGE, methodChannel('app.info'))) as {
    ok: true;
    value: { listeners: { sandbox?: string; bank?: string } };
  };
  return answer.value;
}

/** Holds 127.0.0.1:7302 (or finds it already held by someone else) while `fn` runs. */
async function with7302Taken(fn: () => Promise<void>): Promise<void> {
  return withPortTaken(7302, fn);
}

/** Holds 127.0.0.1:`port` (or finds it already held by someone else) while `fn` runs. */
async function withPortTaken(port: number, fn: () => Promise<void>): Promise<void> {
  const blocker = net.createServer();
  const held = await new Promise<boolean>((resolve, reject) => {
    blocker.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' ? resolve(false) : reject(err),
    );
    blocker.listen(port, '127.0.0.1', () => resolve(true));
  });
  try {
    await fn();
  } finally {
    if (held) await new Promise((resolve) => blocker.close(resolve));
  }
}

async function ready(electron: Fake) {
  electron.app.becomeReady();
  await vi.waitFor(() => expect(electron.BrowserWindow.instances).toHaveLength(1), { timeout: 15_000 });
  return electron.BrowserWindow.instances[0]!;
}

/** The app.noticed events the page was sent whose message starts with `prefix`. */
function noticesTo(win: Awaited<ReturnType<typeof ready>>, prefix: string) {
  return win.webContents.sent.filter(
    ([channel, n]) =>
      channel === eventChannel('app.noticed') &&
      String((n as { message: string }).message).startsWith(prefix),
  );
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dets-main-'));
  vi.stubEnv('DETS_DATA_DIR', dataDir);
  vi.stubEnv('VITE_DEV_SERVER_URL', '');
});
afterEach(async () => {
  await quit();
  vi.unstubAllEnvs();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
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
    expect(info).toMatchObject({
      ok: true,
      value: {
        host: 'desktop',
        dataDir,
        listeners: {
          sandbox: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
          bank: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/?$/),
        },
      },
    });
  });

  it("serves the core's one-time download (customers with their keys) at the path the page is given", async () => {
    const electron = await launch();
    await ready(electron);
    const call = (method: string, input?: unknown) =>
      electron.ipcMain.invokeFrom('app://console/index.html', methodChannel(method as never), input);
    const customer = { obj: 'DE1', external_id: 'e-1', phone: '+1', key: 'desktop-secret-key-1' };
    expect(await call('bank.saveCustomer', customer)).toMatchObject({ ok: true });
    const prepared = (await call('bank.exportCustomersWithKeys', { confirm: 'include secret keys' })) as {
      value: { path: string };
    };
    const installed = electron.protocol.handlers.get('app')!;
    const res = await installed(new Request(`app://console${prepared.value.path}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="dets-console-users.json"');
    expect(await res.text()).toContain('desktop-secret-key-1');
    expect((await installed(new Request(`app://console${prepared.value.path}`))).status).toBe(404);
  });

  it('starts the sandbox listener after the core: its JWKS answers at the URL app.info reports', async () => {
    const electron = await launch();
    await ready(electron);
    const { listeners } = await appInfo(electron);
    const res = await fetch(`${listeners.sandbox}/api/v1/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  });

  it('falls back to a free port when 7302 is busy, and tells the page the URL on its first call', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await with7302Taken(async () => {
      const electron = await launch();
      const win = await ready(electron);
      const all = () => win.webContents.sent.filter(([channel]) => channel === eventChannel('app.noticed'));
      // Only the sandbox's notice: 7301 may be busy too when other test files run alongside.
      const noticed = () => noticesTo(win, 'Sandbox');
      // Nobody listened before the page's first call: the notice was held, not lost.
      expect(all()).toEqual([]);
      const { listeners } = await appInfo(electron);
      expect(listeners.sandbox).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(new URL(listeners.sandbox!).port).not.toBe('7302');
      expect(noticed()).toEqual([
        [
          eventChannel('app.noticed'),
          expect.objectContaining({ level: 'warning', message: expect.stringContaining(listeners.sandbox!) }),
        ],
      ]);
      expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('port 7302 is in use'));
      // Delivered once, not on every call.
      await appInfo(electron);
      expect(noticed()).toHaveLength(1);
      const res = await fetch(`${listeners.sandbox}/api/v1/.well-known/jwks.json`);
      expect(res.status).toBe(200);
    });
  });

  it('starts the bank endpoints after the core: they answer at the URL app.info reports', async () => {
    const electron = await launch();
    await ready(electron);
    const { listeners } = await appInfo(electron);
    expect(listeners.bank).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/);
    const res = await fetch(`${listeners.bank!.replace(/\/$/, '')}/user_auth`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized', check: 'present' });
  });

  it('falls back to a free port when 7301 is busy, and tells the page the bank URL on its first call', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await withPortTaken(7301, async () => {
      const electron = await launch();
      const win = await ready(electron);
      const noticed = () => noticesTo(win, 'Bank endpoints');
      expect(noticed()).toEqual([]);
      const { listeners } = await appInfo(electron);
      const bank = listeners.bank!.replace(/\/$/, '');
      expect(new URL(bank).port).not.toBe('7301');
      expect(noticed()).toEqual([
        [
          eventChannel('app.noticed'),
          expect.objectContaining({ level: 'warning', message: expect.stringContaining(bank) }),
        ],
      ]);
      expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('port 7301 is in use'));
      const res = await fetch(`${bank}/user_auth`);
      expect(res.status).toBe(401);
    });
  });

  it('runs a recovery asked for from the header before the core opens the profile, and tells the page', async () => {
    // A profile with one record broken (quick_check cannot see it) and a recovery asked for.
    const store = await openEventStore({ dataDir, events: new EventHub(), log: () => undefined });
    for (const tx of ['a', 'b', 'c'])
      await store.append(notification({ transaction_id: `tx-${tx}` }), { durable: true });
    await store.close();
    const db = new Database(join(dataDir, 'console.db'));
    db.prepare("UPDATE events SET record = '{broken' WHERE seq = 2").run();
    db.close();
    await writeFile(join(dataDir, RECOVERY_REQUEST), '{"requested_at":"2026-11-24T00:00:00.000Z"}\n');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});

    const electron = await launch();
    const win = await ready(electron);
    const noticed = () => noticesTo(win, 'Recovery at start');
    expect(noticed()).toEqual([]);
    await appInfo(electron);
    expect(noticed()).toEqual([
      [
        eventChannel('app.noticed'),
        expect.objectContaining({
          level: 'warning',
          message: expect.stringMatching(/^Recovery at start: Recovered 2 events .*1 unreadable part/),
        }),
      ],
    ]);
    expect(existsSync(join(dataDir, RECOVERY_REQUEST))).toBe(false);
    expect(readdirSync(dataDir).some((f) => /^console\.db\.damaged-[^.]*Z$/.test(f))).toBe(true);
    const page = (await electron.ipcMain.invokeFrom(APP_PAGE, methodChannel('events.query'), {})) as {
      ok: true;
      value: { total: number };
    };
    expect(page.value.total).toBe(2);
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

  it('closes the bank and sandbox listeners and the core before quitting', async () => {
    const electron = await launch();
    await ready(electron);
    const { listeners } = await appInfo(electron);
    expect(listeners.bank).toBeDefined();
    const willQuit = fakeEvent();
    electron.app.emit('will-quit', willQuit);
    expect(willQuit.defaultPrevented).toBe(true);
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled(), { timeout: 15_000 });
    await expect(fetch(`${listeners.sandbox}/api/v1/.well-known/jwks.json`)).rejects.toThrow();
    await expect(fetch(`${listeners.bank!.replace(/\/$/, '')}/user_auth`)).rejects.toThrow();
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

  it('keeps DevTools in development and leaves them out of the packaged app (menu and window)', async () => {
    type Item = { role?: string; label?: string; submenu?: Item[] };
    const all = (items: Item[]): Item[] => items.flatMap((i) => [i, ...all(i.submenu ?? [])]);
    const menuRoles = (electron: Fake) =>
      all((electron.Menu.current as { template: Item[] }).template).map((i) => i.role ?? i.label);

    const dev = await launch();
    const devWindow = await ready(dev);
    expect(menuRoles(dev)).toContain('viewMenu');
    expect(devWindow.options.webPreferences).toMatchObject({ devTools: true });

    const packaged = await launch((e) => {
      e.app.isPackaged = true;
    });
    const packagedWindow = await ready(packaged);
    expect(menuRoles(packaged)).not.toContain('viewMenu');
    expect(menuRoles(packaged)).not.toContain('toggleDevTools');
    expect(packagedWindow.options.webPreferences).toMatchObject({ devTools: false });
  });

  it('shows the app’s, Electron’s, Chromium’s and Node’s versions from Help › About', async () => {
    const electron = await launch();
    const win = await ready(electron);
    type Item = { label?: string; submenu?: Item[]; click?: () => void };
    const all = (items: Item[]): Item[] => items.flatMap((i) => [i, ...all(i.submenu ?? [])]);
    const about = all((electron.Menu.current as { template: Item[] }).template).find(
      (i) => i.label === 'About DETS Console',
    );
    about!.click!();
    const [parent, options] = electron.dialog.showMessageBox.mock.calls[0] as [
      unknown,
      { message: string; detail: string },
    ];
    expect(parent).toBe(win);
    expect(options.message).toBe('DETS Console 9.8.7');
    expect(options.detail).toContain(`Node.js ${process.versions.node}`);
    expect(options.detail).toMatch(/^Electron .+\nChromium .+\nNode\.js /);
  });

  it('opens a link to the sandbox at once and asks before any other host', async () => {
    const electron = await launch();
    const win = await ready(electron);
    const { listeners } = await appInfo(electron);
    const open = (url: string) => win.webContents.windowOpenHandler!({ url });

    expect(open(`${listeners.sandbox}/api/v1/.well-known/jwks.json`)).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(electron.shell.openExternal).toHaveBeenCalledTimes(1));
    expect(electron.dialog.showMessageBox).not.toHaveBeenCalled();

    electron.dialog.nextResponse = 1; // Cancel
    expect(open('https://elsewhere.example/')).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalledTimes(1));
    expect(electron.shell.openExternal).toHaveBeenCalledTimes(1);
  });
});

describe('the desktop app attaching to a team hub (issue 30 item 2)', () => {
  it('attaches from the page over IPC through the core’s AttachedCore: the hub’s session and live events, never the token', async () => {
    const hubDir = cli.dataDir('hub');
    const token = await addMember(['--data-dir', hubDir], 'olga@bank.example', 'operator');
    const hub = cli.spawn(hubArgs(['--data-dir', hubDir]));
    const hubReady = await hub.ready;
    const electron = await launch();
    const win = await ready(electron);
    const call = (method: string, input?: unknown) =>
      electron.ipcMain.invokeFrom(APP_PAGE, methodChannel(method as never), input);

    expect(await call('team.connection')).toMatchObject({
      ok: true,
      value: { state: 'detached', can_attach: true },
    });
    const hubUrl = new URL('/', String(hubReady.ui)).href;
    expect(await call('team.attach', { hub_url: hubUrl, token })).toMatchObject({
      ok: true,
      value: { state: 'connected', member: 'olga@bank.example', role: 'operator' },
    });
    expect(await call('team.session')).toMatchObject({
      ok: true,
      value: { hub: '127.0.0.1', role: 'operator' },
    });
    // The window hears the change and then the hub's own events.
    const tx = crypto.randomUUID();
    await fetch(`${String(hubReady.bank)}/api/svc/notify/pay-in`, {
      method: 'POST',
      body: JSON.stringify({ transaction_id: tx }),
    });
    await vi.waitFor(
      () => expect(win.webContents.sent.some(([, p]) => JSON.stringify(p).includes(tx))).toBe(true),
      { timeout: 15_000 },
    );
    expect(win.webContents.sent.some(([channel]) => channel === eventChannel('team.changed'))).toBe(true);
    expect(JSON.stringify(win.webContents.sent).includes(token)).toBe(false);

    expect(await call('team.detach')).toMatchObject({ ok: true, value: { state: 'detached' } });
    expect(await call('team.session')).toMatchObject({ ok: true, value: { hub: null } });
    await hub.stop();
  }, 120_000);
});
