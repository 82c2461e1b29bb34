/**
 * The preload: exposes the typed ConsoleApi facade as `window.detsConsole` (STYLE.md 4).
 *
 * Threat model: whatever runs in the page can call what is exposed here, so the page gets the
 * named facade generated from the contract and nothing else: never `ipcRenderer`, never a
 * generic `invoke(channel)`. Calls go only to contract method channels, listeners only to
 * contract event channels, and listeners never see Electron's event object (it carries
 * `sender`, i.e. ipcRenderer). Main checks the sender frame again (electron/main/ipc.ts).
 *
 * Runs sandboxed: it may require only `electron`; the contract and zod are bundled into
 * dist/preload/preload.cjs by scripts/build.mjs.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  CHANNEL_PREFIX,
  TRANSPORT,
  bridgeSafe,
  buildFacade,
  eventChannel,
  isEventName,
  isMethodName,
  isErrorCode,
  methodChannel,
  type ConsoleApi,
  type Envelope,
  type Transport,
} from '../contract';

type Ipc = Pick<typeof ipcRenderer, 'invoke' | 'on' | 'removeListener'>;

function contractChannel(channel: string): string {
  if (!channel.startsWith(CHANNEL_PREFIX)) throw new Error(`"${channel}" is not a contract channel`);
  return channel;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  if (!value || typeof value !== 'object' || !('ok' in value)) return false;
  const v = value as { ok: unknown; error?: { code?: unknown; message?: unknown } };
  if (v.ok === true) return 'value' in value;
  return v.ok === false && isErrorCode(v.error?.code) && typeof v.error?.message === 'string';
}

/** The IPC transport under the facade; exported for tests. */
export function ipcTransport(ipc: Ipc): Transport {
  return {
    async call(method, input) {
      if (!isMethodName(method)) {
        return {
          ok: false,
          error: { code: 'UNKNOWN_METHOD', message: `unknown method "${String(method)}"` },
        };
      }
      try {
        const answer: unknown = await ipc.invoke(contractChannel(methodChannel(method)), input);
        if (isEnvelope(answer)) return answer;
        return {
          ok: false,
          error: { code: 'INTERNAL', message: `${method}: malformed answer from the main process` },
        };
      } catch (err) {
        // Only when IPC itself failed (no handler, argument not cloneable): still an envelope.
        return {
          ok: false,
          error: { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) },
        };
      }
    },
    subscribe(event, listener) {
      if (!isEventName(event)) throw new Error(`unknown event "${String(event)}"`);
      const channel = contractChannel(eventChannel(event));
      const strip = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
      ipc.on(channel, strip);
      return () => {
        ipc.removeListener(channel, strip);
      };
    },
  };
}

export function exposeConsoleApi(
  bridge: Pick<typeof contextBridge, 'exposeInMainWorld'>,
  ipc: Ipc,
): ConsoleApi {
  // bridgeSafe: contextBridge would strip a ConsoleError to its message; plain data keeps the code.
  const api = bridgeSafe(buildFacade(ipcTransport(ipc)));
  bridge.exposeInMainWorld(TRANSPORT.preloadGlobal, api);
  return api;
}

exposeConsoleApi(contextBridge, ipcRenderer);
