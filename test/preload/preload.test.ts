import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextBridge, fakeEvent, ipcMain, ipcRenderer } from '../main/fake-electron';
import {
  ConsoleError,
  reviveBridgedErrors,
  EVENT_NAMES,
  METHOD_NAMES,
  TRANSPORT,
  eventChannel,
  methodChannel,
  type ConsoleApi,
} from '../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { createOriginPolicy } from '../../electron/main/app-origin';
import { registerIpcHandlers } from '../../electron/main/ipc';

vi.mock('electron', () => import('../main/fake-electron'));

// Importing the preload runs it, as Electron does: it exposes the facade once.
await import('../../electron/preload/preload');

const api = contextBridge.exposed.get(TRANSPORT.preloadGlobal) as ConsoleApi;

beforeEach(() => {
  ipcRenderer.invoke.mockClear();
});

describe('the preload', () => {
  it('exposes one thing, under detsConsole', () => {
    expect(contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    expect([...contextBridge.exposed.keys()]).toEqual(['detsConsole']);
  });

  it('exposes exactly the contract domains and methods, plus on', () => {
    const expected: Record<string, string[]> = {};
    for (const name of METHOD_NAMES) {
      const [domain, action] = name.split('.') as [string, string];
      (expected[domain] ??= []).push(action);
    }
    const exposed = api as unknown as Record<string, unknown>;
    expect(Object.keys(exposed).sort()).toEqual([...Object.keys(expected), 'on'].sort());
    expect(typeof exposed.on).toBe('function');
    for (const [domain, actions] of Object.entries(expected)) {
      const members = exposed[domain] as Record<string, unknown>;
      expect(Object.keys(members).sort(), domain).toEqual(actions.sort());
      for (const action of actions) expect(typeof members[action], `${domain}.${action}`).toBe('function');
    }
  });

  it('never exposes ipcRenderer or any of its functions', () => {
    const seen = new Set<unknown>();
    const walk = (value: unknown) => {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value))
        return;
      seen.add(value);
      for (const key of Reflect.ownKeys(value)) {
        const desc = Object.getOwnPropertyDescriptor(value, key);
        if (desc && 'value' in desc) walk(desc.value);
      }
    };
    walk(api);
    const forbidden = [
      ipcRenderer,
      ipcRenderer.invoke,
      ipcRenderer.on,
      ipcRenderer.emit,
      ipcRenderer.removeListener,
    ];
    for (const f of forbidden) expect(seen.has(f)).toBe(false);
    expect(JSON.stringify(Object.keys(api))).not.toMatch(/invoke|send|ipc/i);
  });

  it('calls a method on its contract channel and resolves with the value', async () => {
    ipcRenderer.target = async () => ({ ok: true, value: { name: 'x' } });
    await expect(api.app.info()).resolves.toEqual({ name: 'x' });
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(methodChannel('app.info'), undefined);

    const input = { token: 'a.b.c' };
    await api.inspector.inspect(input);
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('app:inspector.inspect', input);
  });

  it('rejects an ok:false envelope with plain error data that survives contextBridge', async () => {
    ipcRenderer.target = async () => ({
      ok: false,
      error: { code: 'FORBIDDEN', message: 'app.info: refused' },
    });
    const err = await api.app.info().catch((e: unknown) => e);
    // contextBridge copies plain objects whole but strips an Error to its message.
    expect(err).not.toBeInstanceOf(Error);
    expect(err).toEqual({ code: 'FORBIDDEN', message: 'app.info: refused' });
    expect(structuredClone(err)).toEqual(err);
    // The renderer's side revives it into a ConsoleError with its code.
    const revived = await reviveBridgedErrors(api)
      .app.info()
      .catch((e: unknown) => e);
    expect(revived).toBeInstanceOf(ConsoleError);
    expect(revived).toMatchObject({ code: 'FORBIDDEN', message: 'app.info: refused' });
  });

  it('turns IPC failures and malformed answers into coded errors', async () => {
    ipcRenderer.target = async (channel) => {
      throw new Error(`No handler registered for '${channel}'`);
    };
    await expect(api.app.info()).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('No handler'),
    });
    ipcRenderer.target = async () => 'not an envelope';
    await expect(api.app.info()).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('malformed'),
    });
  });

  it('gives listeners the payload only, and unsubscribes exactly that listener', () => {
    const [event] = EVENT_NAMES as [(typeof EVENT_NAMES)[number]];
    const channel = eventChannel(event);
    const first = vi.fn();
    const second = vi.fn();
    const before = ipcRenderer.listenerCount(channel);
    const offFirst = api.on(event, first);
    const offSecond = api.on(event, second);
    expect(ipcRenderer.listenerCount(channel)).toBe(before + 2);

    const payload = { at: '2025-01-01T00:00:00.000Z', level: 'info', message: 'hi' };
    const electronEvent = { ...fakeEvent(), sender: ipcRenderer, senderId: 0 };
    ipcRenderer.emit(channel, electronEvent, payload);
    expect(first).toHaveBeenCalledWith(payload);
    expect(first.mock.calls[0]).toHaveLength(1);

    offFirst();
    expect(ipcRenderer.listenerCount(channel)).toBe(before + 1);
    ipcRenderer.emit(channel, electronEvent, payload);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(2);
    offFirst(); // idempotent: does not remove the other listener
    expect(ipcRenderer.listenerCount(channel)).toBe(before + 1);
    offSecond();
    expect(ipcRenderer.listenerCount(channel)).toBe(before);
  });

  it('refuses events outside the contract', () => {
    expect(() => api.on('app.hacked' as never, () => {})).toThrow(ConsoleError);
  });
});

describe('preload and main together', () => {
  let dataDir: string;
  let core: ConsoleCore;
  let unregister: () => void;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dets-preload-'));
    core = await createConsoleCore({ dataDir, host: 'desktop' });
    unregister = registerIpcHandlers(ipcMain, core, createOriginPolicy());
  });
  afterAll(async () => {
    unregister();
    await core.close();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('reaches the real core from the app page', async () => {
    ipcRenderer.target = (channel, ...args) =>
      ipcMain.invokeFrom('app://console/index.html', channel, ...args);
    await expect(api.app.info()).resolves.toMatchObject({ host: 'desktop', dataDir });
    await expect(api.app.info({ bogus: true } as never)).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });

  it('is refused from a foreign page', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    ipcRenderer.target = (channel, ...args) => ipcMain.invokeFrom('https://evil.example/', channel, ...args);
    await expect(api.app.info()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
