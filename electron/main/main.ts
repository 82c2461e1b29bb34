/**
 * The desktop host's lifecycle: one instance per profile, one core, one window. Everything else
 * lives in its own module: the window factory and its guards (window.ts, session.ts), the
 * app:// scheme (protocol.ts), the IPC wiring (ipc.ts), the one openExternal (external.ts), the
 * menu and About dialog (menu.ts), native modules in the packaged app (native-modules.ts).
 *
 * Bundled by scripts/build.mjs to dist/main/main.js (ESM, npm packages external), next to
 * dist/preload/preload.cjs and dist/renderer/.
 */
import { app, dialog, ipcMain, Menu, protocol, shell, type BrowserWindow } from 'electron';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MethodOutput } from '../contract';
import { createConsoleCore, type ConsoleCore } from '../core/console-core';
import { AttachedCore } from '../core/team';
import { createOsKeychain } from '../core/vault';
import type { SandboxListener } from '../core/sandbox';
import type { BankListener } from '../core/bank';
import { startBankListener } from './bank-listener';
import { createOriginPolicy } from './app-origin';
import { createExternalOpener, serviceOrigins } from './external';
import { forwardEvents, registerIpcHandlers } from './ipc';
import { aboutOptions, menuTemplate } from './menu';
import { packagedKeychain } from './native-modules';
import { registerAppScheme, serveRenderer } from './protocol';
import { startSandboxListener } from './sandbox-listener';
import { createMainWindow, guardAllWebContents } from './window';

const here = dirname(fileURLToPath(import.meta.url));
const PRELOAD_PATH = join(here, '../preload/preload.cjs');
const RENDERER_DIR = join(here, '../renderer');

// Before anything else: the scheme must be privileged before `ready`, and every renderer is
// sandboxed whatever a window asks for.
registerAppScheme(protocol);
app.enableSandbox();

// DETS_DATA_DIR (as for the CLI and `serve`) moves the whole profile, Chromium's part
// included, so the single-instance lock is per profile. Default: the OS's per-user app data
// folder, which the CLI and `serve` use too (DESIGN.md: one profile, one vault).
if (process.env.DETS_DATA_DIR) app.setPath('userData', resolve(process.env.DETS_DATA_DIR));

// The dev server is trusted only in an unpackaged app: an environment variable must not be
// able to hand the ConsoleApi to another page in an installed one.
const policy = createOriginPolicy(app.isPackaged ? undefined : process.env.VITE_DEV_SERVER_URL);

let core: ConsoleCore | undefined;
/** What the window talks to: the core, or a team hub once attached from the start page (issue 30). */
let pages: AttachedCore | undefined;
let sandboxListener: SandboxListener | null = null;
let bankListener: BankListener | null = null;
let mainWindow: BrowserWindow | null = null;

/** The origins a link opens without asking (external.ts): asked of the core at each click. */
async function knownOrigins(): Promise<string[]> {
  const envs = core ? await core.dispatch('env.list', undefined) : null;
  const value = envs?.ok ? (envs.value as MethodOutput<'env.list'>) : null;
  return serviceOrigins(value, sandboxListener?.url ?? null);
}
const openExternal = createExternalOpener({ shell, dialog, knownOrigins, parent: () => mainWindow });

function showAbout(): void {
  const options = aboutOptions({
    name: 'DETS Console',
    app: app.getVersion(),
    electron: process.versions.electron ?? '?',
    chrome: process.versions.chrome ?? '?',
    node: process.versions.node,
  });
  const shown =
    mainWindow && !mainWindow.isDestroyed()
      ? dialog.showMessageBox(mainWindow, options)
      : dialog.showMessageBox(options);
  shown.catch(() => undefined);
}

function showMainWindow(): void {
  if (mainWindow && !mainWindow.isDestroyed()) {
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
    return;
  }
  if (!pages) return;
  const win = createMainWindow({
    preloadPath: PRELOAD_PATH,
    policy,
    openExternal,
    devTools: !app.isPackaged,
  });
  forwardEvents(pages.events, win.webContents, policy);
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  mainWindow = win;
  win.loadURL(policy.entryUrl).catch((err: unknown) => {
    console.error(
      `dets-console: could not load ${policy.entryUrl}: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
}

async function start(): Promise<void> {
  const started = await createConsoleCore({
    dataDir: app.getPath('userData'),
    host: 'desktop',
    // Installed: the keychain worker loads the binding from app.asar.unpacked (native-modules.ts).
    ...(app.isPackaged ? { keychain: packagedKeychain() } : {}),
  });
  core = started;
  // The same HubClient `dets-console attach` uses; the member token goes to the OS keychain
  // through the vault's keychain layer (core/team attached-core.ts).
  pages = new AttachedCore({
    local: started,
    dataDir: app.getPath('userData'),
    keychain: started.options.keychain ?? createOsKeychain(),
    log: (line) => console.warn(`dets-console: ${line}`),
  });
  // Re-attach to the hub attached last time, in the background: the window opens at once.
  void pages.resume();
  // The sandbox first: the bank endpoints fetch the service's keys from its JWKS by default.
  const sandbox = await startSandboxListener(started);
  sandboxListener = sandbox.listener;
  const bank = await startBankListener(started);
  bankListener = bank.listener;
  // Raised before any page listens: the core holds them until the page's first call.
  for (const notice of [sandbox.notice, bank.notice]) {
    if (!notice) continue;
    (notice.level === 'error' ? console.error : console.warn)(`dets-console: ${notice.message}`);
    started.holdNotice(notice);
  }
  serveRenderer(protocol, RENDERER_DIR, started.downloads);
  guardAllWebContents(app, openExternal);
  registerIpcHandlers(ipcMain, pages, policy);
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate({ platform: process.platform, packaged: app.isPackaged, onAbout: showAbout }),
    ),
  );
  showMainWindow();
}

function fail(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`dets-console: failed to start: ${message}`);
  dialog.showErrorBox('DETS Console could not start', message);
  app.exit(1);
}

if (!app.requestSingleInstanceLock()) {
  // Another window already holds this profile; it gets focused by its second-instance event.
  app.quit();
} else {
  app.on('second-instance', showMainWindow);
  app.on('activate', showMainWindow);
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Close the bank and sandbox listeners (finishing requests in flight), then the core (bank
  // endpoints, sandbox, event store flushed), once, before the process ends.
  let closing = false;
  app.on('will-quit', (event) => {
    if (!core || closing) return;
    closing = true;
    event.preventDefault();
    const done = () => app.quit();
    const closeAll = async () => {
      try {
        await Promise.all([
          bankListener
            ?.close()
            .catch((err: unknown) => console.error(`dets-console: bank endpoints: ${String(err)}`)),
          sandboxListener?.close(),
        ]);
      } finally {
        pages?.close();
        await core?.close();
      }
    };
    closeAll().then(done, (err: unknown) => {
      console.error(`dets-console: error while closing: ${err instanceof Error ? err.message : String(err)}`);
      done();
    });
  });

  app.whenReady().then(start).catch(fail);
}
