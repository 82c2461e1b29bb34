/**
 * The one window factory (STYLE.md 5). Every BrowserWindow of the app comes from here, so the
 * security settings cannot drift between windows.
 *
 * Threat model: the renderer shows data from outside (tokens pasted by the user, callback
 * requests, answers of a bank's backend). If a script ever ran in it, it must be stuck in a
 * sandboxed, context-isolated page without Node, that cannot navigate away, open windows,
 * attach webviews or be granted any permission, and whose only door to the main process is the
 * contract's IPC channels (checked again in ipc.ts).
 */
import { BrowserWindow, nativeTheme, type App, type WebContents } from 'electron';
import type { OriginPolicy } from './app-origin';
import { hardenSession } from './session';

export interface MainWindowOptions {
  /** Absolute path of dist/preload/preload.cjs. */
  preloadPath: string;
  policy: OriginPolicy;
  /** The app's one openExternal (external.ts); receives window.open targets. */
  openExternal: (url: string) => boolean;
  /** False in the packaged app (menu.ts says why); true in development. */
  devTools: boolean;
}

/**
 * Navigation, new windows and webviews: denied on any webContents. http(s) targets of
 * window.open / target=_blank go to the user's browser; everything else is dropped.
 */
export function guardWebContents(contents: WebContents, openExternal: (url: string) => boolean): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternal(url);
    return { action: 'deny' };
  });
}

/**
 * Also guards web contents the factory did not create (devtools, anything a future change
 * adds), as soon as they exist.
 */
export function guardAllWebContents(app: Pick<App, 'on'>, openExternal: (url: string) => boolean): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, openExternal));
}

export function createMainWindow({
  preloadPath,
  policy,
  openExternal,
  devTools,
}: MainWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    title: 'DETS Console',
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    // The renderer's --bg for the OS theme (renderer/styles/tokens.css), so loading does not flash.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#1b1d21' : '#ffffff',
    // Written out in full here, not spread from a constant, so that the static audit
    // (scripts/audit-electron.mjs) sees every option; test/main/window.test.ts pins the set.
    webPreferences: {
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
      devTools,
      // Middle-click must not open anything either.
      disableBlinkFeatures: 'Auxclick',
      // Audit: reviewed; the preload exposes only the contract facade, never ipcRenderer
      // (electron/preload/preload.ts, test/preload/preload.test.ts).
      preload: preloadPath, // eng-disable PRELOAD_JS_CHECK
    },
  });
  hardenSession(win.webContents.session, policy);
  guardWebContents(win.webContents, openExternal);
  win.once('ready-to-show', () => win.show());
  return win;
}
