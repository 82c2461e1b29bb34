/**
 * The application menu, made of Electron's standard roles: copy/paste, reload, zoom, window
 * management, the macOS app menu, and Help › About with the versions an integrator quotes in a
 * support request.
 *
 * DevTools only in development (`!app.isPackaged`): in an installed app they would hand anyone
 * at the keyboard a console inside the page that holds the whole ConsoleApi, and the window is
 * created with `devTools: false` as well (window.ts), so no shortcut opens them either.
 */
import type { MenuItemConstructorOptions, MessageBoxOptions } from 'electron';

export interface MenuOptions {
  platform: NodeJS.Platform;
  /** app.isPackaged: an installed app gets no DevTools. */
  packaged: boolean;
  /** Shows the About dialog (main passes a function that calls dialog.showMessageBox). */
  onAbout: () => void;
}

export interface AboutVersions {
  name: string;
  /** app.getVersion(): the version in package.json. */
  app: string;
  /** process.versions.electron, .chrome, .node */
  electron: string;
  chrome: string;
  node: string;
}

/** The About dialog: the app's version, then Electron's, Chromium's and Node's. */
export function aboutOptions(v: AboutVersions): MessageBoxOptions {
  return {
    type: 'info',
    title: `About ${v.name}`,
    message: `${v.name} ${v.app}`,
    detail: [`Electron ${v.electron}`, `Chromium ${v.chrome}`, `Node.js ${v.node}`].join('\n'),
    buttons: ['OK'],
    noLink: true,
  };
}

/** The View menu: viewMenu's items, with DevTools only in development. */
function viewMenu(packaged: boolean): MenuItemConstructorOptions {
  if (!packaged) return { role: 'viewMenu' };
  return {
    label: 'View',
    submenu: [
      { role: 'reload' },
      { role: 'forceReload' },
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
}

/**
 * @example
 * Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate({ platform, packaged, onAbout })));
 */
export function menuTemplate({ platform, packaged, onAbout }: MenuOptions): MenuItemConstructorOptions[] {
  const about: MenuItemConstructorOptions = { label: 'About DETS Console', click: onAbout };
  return [
    ...(platform === 'darwin'
      ? [
          {
            label: 'DETS Console',
            submenu: [
              about,
              { type: 'separator' },
              { role: 'services' },
              { type: 'separator' },
              { role: 'hide' },
              { role: 'hideOthers' },
              { role: 'unhide' },
              { type: 'separator' },
              { role: 'quit' },
            ],
          } satisfies MenuItemConstructorOptions,
        ]
      : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    viewMenu(packaged),
    { role: 'windowMenu' },
    { role: 'help', submenu: [about] },
  ];
}
