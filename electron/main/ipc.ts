/**
 * IPC wiring, generated from the contract table: one `ipcMain.handle` per method, nothing else,
 * and the core's live events forwarded to the window. No business rule lives here: arguments
 * are validated by the core's dispatch against the method's schema.
 *
 * Threat model: any frame in any renderer process can send on any channel. A handler answers
 * only a sender frame whose URL is the app's own page (app://console, or the dev server in
 * development); anything else (a foreign subframe, a page the window was tricked into loading,
 * about:blank) gets FORBIDDEN and the core never sees the call. Results always travel as data
 * (`{ok, value} | {ok:false, error}`): only an Error's message would survive `ipcMain.handle`.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import {
  CHANNEL_PREFIX,
  METHOD_NAMES,
  eventChannel,
  methodChannel,
  toErrorData,
  type Envelope,
  type MethodName,
} from '../contract';
import type { ConsoleCore } from '../core/console-core';
import type { OriginPolicy } from './app-origin';

type Trust = Pick<OriginPolicy, 'isTrusted'>;

/** The URL of the frame that sent `event`, or null when it is gone. */
function senderUrl(event: IpcMainInvokeEvent): string | null {
  try {
    return event.senderFrame?.url ?? null;
  } catch {
    return null;
  }
}

function forbidden(method: MethodName): Envelope<never> {
  return {
    ok: false,
    error: { code: 'FORBIDDEN', message: `${method}: refused: the caller is not the DETS Console page` },
  };
}

/**
 * Registers a handler for every contract method. Returns a function that removes them all.
 *
 * @example
 * const unregister = registerIpcHandlers(ipcMain, core, policy);
 * app.on('will-quit', unregister);
 */
export function registerIpcHandlers(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>,
  core: Pick<ConsoleCore, 'dispatch'>,
  policy: Trust,
): () => void {
  const channels: string[] = [];
  for (const method of METHOD_NAMES) {
    const channel = methodChannel(method);
    // Channel names come only from the contract; a name outside the prefix is a contract bug.
    if (!channel.startsWith(CHANNEL_PREFIX))
      throw new Error(`contract channel "${channel}" lacks "${CHANNEL_PREFIX}"`);
    ipcMain.handle(channel, async (event, arg: unknown): Promise<Envelope<unknown>> => {
      const url = senderUrl(event);
      if (!policy.isTrusted(url)) {
        console.warn(
          `dets-console: refused ${channel} from ${url === null ? 'a detached frame' : JSON.stringify(url)}`,
        );
        return forbidden(method);
      }
      try {
        return await core.dispatch(method, arg);
      } catch (err) {
        // dispatch already answers with envelopes; this only guards against a broken core.
        return { ok: false, error: toErrorData(err) };
      }
    });
    channels.push(channel);
  }
  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}

/** The part of WebContents event forwarding uses. */
interface EventTarget {
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  getURL(): string;
  once(event: 'destroyed', listener: () => void): unknown;
}

/**
 * Forwards every core event to `contents` on its contract channel while the page there is the
 * app's own. Stops when the web contents are destroyed; the returned function stops it earlier.
 */
export function forwardEvents(
  events: Pick<ConsoleCore['events'], 'onAny'>,
  contents: EventTarget,
  policy: Trust,
): () => void {
  const off = events.onAny((event, payload) => {
    if (contents.isDestroyed() || !policy.isTrusted(contents.getURL())) return;
    contents.send(eventChannel(event), payload);
  });
  const stop = () => {
    off();
  };
  contents.once('destroyed', stop);
  return stop;
}
