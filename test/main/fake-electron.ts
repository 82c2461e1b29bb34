/**
 * A stand-in for the `electron` module, the one thing the tests cannot run (no binary here).
 * Only the members main and preload use, with just enough behaviour to observe them:
 * `vi.mock('electron', () => import('./fake-electron'))`. Core, contract and zod stay real.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

type Handler = (...args: never[]) => unknown;

/** What Electron passes as the first argument of a cancellable event. */
export function fakeEvent(): { preventDefault: () => void; defaultPrevented: boolean } {
  const event = {
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

export class FakeSession {
  permissionRequestHandler?: (
    wc: unknown,
    permission: string,
    callback: (granted: boolean) => void,
    details: unknown,
  ) => void;
  permissionCheckHandler?: (...args: unknown[]) => boolean;
  devicePermissionHandler?: (...args: unknown[]) => boolean;
  headersListener?: (
    details: { url: string; responseHeaders?: Record<string, string[]> },
    callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
  ) => void;
  readonly webRequest = {
    onHeadersReceived: (listener: NonNullable<FakeSession['headersListener']>) => {
      this.headersListener = listener;
    },
  };
  setPermissionRequestHandler(h: FakeSession['permissionRequestHandler']) {
    this.permissionRequestHandler = h;
  }
  setPermissionCheckHandler(h: FakeSession['permissionCheckHandler']) {
    this.permissionCheckHandler = h;
  }
  setDevicePermissionHandler(h: FakeSession['devicePermissionHandler']) {
    this.devicePermissionHandler = h;
  }
}

export class FakeWebContents extends EventEmitter {
  url = '';
  destroyed = false;
  readonly session = new FakeSession();
  readonly sent: Array<[string, unknown]> = [];
  windowOpenHandler?: (details: { url: string }) => { action: 'allow' | 'deny' };
  setWindowOpenHandler(handler: FakeWebContents['windowOpenHandler']) {
    this.windowOpenHandler = handler;
  }
  getURL() {
    return this.url;
  }
  isDestroyed() {
    return this.destroyed;
  }
  send(channel: string, payload: unknown) {
    this.sent.push([channel, payload]);
  }
  destroy() {
    this.destroyed = true;
    this.emit('destroyed');
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly instances: BrowserWindow[] = [];
  static getAllWindows() {
    return BrowserWindow.instances.filter((w) => !w.destroyed);
  }
  readonly webContents = new FakeWebContents();
  readonly options: Record<string, unknown>;
  loadedUrl?: string;
  destroyed = false;
  visible = false;
  focused = false;
  minimized = false;
  constructor(options: Record<string, unknown>) {
    super();
    this.options = options;
    BrowserWindow.instances.push(this);
  }
  async loadURL(url: string) {
    this.loadedUrl = url;
    this.webContents.url = url;
  }
  show() {
    this.visible = true;
  }
  focus() {
    this.focused = true;
  }
  isMinimized() {
    return this.minimized;
  }
  restore() {
    this.minimized = false;
  }
  isDestroyed() {
    return this.destroyed;
  }
}

/** ipcMain.handle registry; `invokeFrom` plays a renderer frame at `url` calling a channel. */
class FakeIpcMain {
  readonly handlers = new Map<string, Handler>();
  handle(channel: string, handler: Handler) {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel);
  }
  async invokeFrom(url: string | null, channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel) as ((...a: unknown[]) => unknown) | undefined;
    if (!handler)
      throw new Error(
        `Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`,
      );
    const event = { senderFrame: url === null ? null : { url }, sender: {} };
    return handler(event, ...args);
  }
}
export const ipcMain = new FakeIpcMain();

/** ipcRenderer: invoke goes to `ipcRendererTarget` (tests point it at ipcMain or a stub). */
class FakeIpcRenderer extends EventEmitter {
  target: (channel: string, ...args: unknown[]) => Promise<unknown> = async (channel) => {
    throw new Error(`No handler registered for '${channel}'`);
  };
  readonly invoke = vi.fn((channel: string, ...args: unknown[]) => this.target(channel, ...args));
}
export const ipcRenderer = new FakeIpcRenderer();

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld: vi.fn((key: string, api: unknown) => {
    if (contextBridge.exposed.has(key))
      throw new Error(`Cannot bind an API on top of an existing property on the window object`);
    contextBridge.exposed.set(key, api);
  }),
};

export const shell = { openExternal: vi.fn(async (_url: string) => {}) };

export const protocol = {
  privileged: [] as Array<{ scheme: string; privileges?: Record<string, boolean>; appWasReady: boolean }>,
  handlers: new Map<string, (request: Request) => Response | Promise<Response>>(),
  registerSchemesAsPrivileged: vi.fn(
    (schemes: Array<{ scheme: string; privileges?: Record<string, boolean> }>) => {
      // Electron only honours this before `ready`; remember when it happened.
      protocol.privileged.push(...schemes.map((s) => ({ ...s, appWasReady: app.ready })));
    },
  ),
  handle: vi.fn((scheme: string, handler: (request: Request) => Response | Promise<Response>) => {
    protocol.handlers.set(scheme, handler);
  }),
};

class FakeApp extends EventEmitter {
  isPackaged = false;
  ready = false;
  hasLock = true;
  readonly paths = new Map<string, string>([['userData', '/fake/user-data']]);
  readonly calls: string[] = [];
  private resolveReady!: () => void;
  private readyPromise = new Promise<void>((resolve) => (this.resolveReady = resolve));
  /** Back to a process that has not started yet. */
  reset() {
    this.removeAllListeners();
    this.isPackaged = false;
    this.ready = false;
    this.hasLock = true;
    this.paths.clear();
    this.paths.set('userData', '/fake/user-data');
    this.calls.length = 0;
    this.readyPromise = new Promise<void>((resolve) => (this.resolveReady = resolve));
    for (const f of [this.enableSandbox, this.requestSingleInstanceLock, this.quit, this.exit]) f.mockClear();
  }
  enableSandbox = vi.fn(() => {
    this.calls.push('enableSandbox');
  });
  requestSingleInstanceLock = vi.fn(() => this.hasLock);
  quit = vi.fn(() => {
    this.calls.push('quit');
  });
  exit = vi.fn((_code?: number) => {
    this.calls.push('exit');
  });
  getVersion() {
    return '9.8.7';
  }
  setPath(name: string, value: string) {
    this.paths.set(name, value);
  }
  getPath(name: string) {
    const p = this.paths.get(name);
    if (!p) throw new Error(`unknown path ${name}`);
    return p;
  }
  whenReady() {
    return this.readyPromise;
  }
  /** Test helper: fire `ready`. */
  becomeReady() {
    this.ready = true;
    this.resolveReady();
  }
}
export const app = new FakeApp();

export const Menu = {
  current: undefined as unknown,
  buildFromTemplate: vi.fn((template: unknown[]) => ({ template })),
  setApplicationMenu: vi.fn((menu: unknown) => {
    Menu.current = menu;
  }),
};

export const nativeTheme = { shouldUseDarkColors: false };

/** showMessageBox answers `dialog.nextResponse` (0: the first button) and records its options. */
export const dialog = {
  nextResponse: 0,
  showErrorBox: vi.fn((_title: string, _content: string) => {}),
  showMessageBox: vi.fn(async (...args: unknown[]) => {
    void args;
    return { response: dialog.nextResponse, checkboxChecked: false };
  }),
};

/**
 * Vitest keeps a mocked module's instance across vi.resetModules(), so a test that loads main.ts
 * afresh resets the stand-in with this first.
 */
export function resetFakeElectron(): void {
  app.reset();
  BrowserWindow.instances.length = 0;
  ipcMain.handlers.clear();
  ipcRenderer.removeAllListeners();
  ipcRenderer.invoke.mockClear();
  contextBridge.exposed.clear();
  contextBridge.exposeInMainWorld.mockClear();
  shell.openExternal.mockClear();
  protocol.privileged.length = 0;
  protocol.handlers.clear();
  protocol.registerSchemesAsPrivileged.mockClear();
  protocol.handle.mockClear();
  Menu.current = undefined;
  Menu.buildFromTemplate.mockClear();
  Menu.setApplicationMenu.mockClear();
  dialog.showErrorBox.mockClear();
  dialog.showMessageBox.mockClear();
  dialog.nextResponse = 0;
}

export default {
  app,
  BrowserWindow,
  contextBridge,
  dialog,
  ipcMain,
  ipcRenderer,
  Menu,
  nativeTheme,
  protocol,
  shell,
};
