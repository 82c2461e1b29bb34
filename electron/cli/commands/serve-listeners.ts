/**
 * The listeners `serve` starts (DESIGN.md "Command line"): the UI, the bank endpoints and the
 * sandbox (unless --no-sandbox), each contributing its own ready-line key; a listen error is a
 * one-line usage error naming the flag that chose the port.
 */
import { ConsoleError } from '../../contract';
import type { ConsoleCore } from '../../core/console-core';
import { AttachedCore, type TeamGuard } from '../../core/team';
import { createOsKeychain } from '../../core/vault';
import { startHeadlessServer } from '../../headless';
import { UsageError } from '../io';
import type { ServeOptions } from './serve-options';

/** Ready-line keys, in the order DESIGN.md's example prints them. */
export type ListenerKey = 'ui' | 'bank' | 'sandbox';

interface Listener {
  key: ListenerKey;
  /** The flag that chose the port, named in errors. */
  flag: string;
  port: number;
  /** Starts listening; the URL is the ready line's value for `key`. */
  start(core: ConsoleCore, options: ServeOptions, team?: TeamGuard): Promise<StartedListener>;
}

export interface StartedListener {
  key: ListenerKey;
  url: string;
  close(): Promise<void>;
}

const READY_KEYS: readonly ListenerKey[] = ['ui', 'bank', 'sandbox'];

/** The listeners this invocation starts, each contributing its own ready-line key. */
export function listenersFor(options: ServeOptions): Listener[] {
  const list: Listener[] = [
    {
      key: 'ui',
      flag: '--ui-port',
      port: options.uiPort,
      async start(core, opts, team) {
        // On a laptop the page can attach to a team hub from its start page (issue 30 item 2),
        // as the desktop app does; a hub never attaches (its core refuses team.attach).
        const pages = team ? null : attachable(core);
        // A hub serves its UI over TLS too: member tokens cross the network (issue 30).
        const server = await startHeadlessServer({
          // Downloads stay the local core's (a hub's one-time downloads are not relayed).
          core: pages
            ? { dispatch: (m, i) => pages.dispatch(m, i), events: pages.events, downloads: core.downloads }
            : core,
          host: opts.host,
          port: opts.uiPort,
          ...(team ? { team } : {}),
          ...(team && opts.tls ? { tls: { cert: opts.tls.cert, key: opts.tls.key } } : {}),
        });
        return {
          key: 'ui',
          url: server.tokenUrl,
          close: async () => {
            await server.close();
            pages?.close();
          },
        };
      },
    },
    {
      key: 'bank',
      flag: '--bank-port',
      port: options.bankPort,
      async start(core, opts) {
        const listener = await core.listenBank({
          host: opts.host,
          port: opts.bankPort,
          ...(opts.tls ? { tls: { cert: opts.tls.cert, key: opts.tls.key } } : {}),
        });
        return { key: 'bank', url: baseUrl(listener.url), close: () => listener.close() };
      },
    },
  ];
  if (options.sandboxPort !== null) {
    const port = options.sandboxPort;
    list.push({
      key: 'sandbox',
      flag: '--sandbox-port',
      port,
      async start(core, opts) {
        const listener = await core.listenSandbox({ host: opts.host, port });
        return { key: 'sandbox', url: baseUrl(listener.url), close: () => listener.close() };
      },
    });
  }
  return list;
}

/** A listener's base URL as the ready line prints it: no trailing slash. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A listen error as a one-line usage error naming the flag, or undefined if it is not one. */
export function listenError(
  err: unknown,
  listener: { flag: string; port: number },
  host: string,
): UsageError | undefined {
  const code = err && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
  if (code === 'EADDRINUSE') {
    return new UsageError(
      `${listener.flag}: port ${listener.port} on ${host} is already in use (choose another, or 0 for any free port)`,
    );
  }
  if (code === 'EACCES') {
    return new UsageError(`${listener.flag}: not allowed to listen on port ${listener.port} on ${host}`);
  }
  if (code === 'EADDRNOTAVAIL') return new UsageError(`--host: ${host} is not an address of this machine`);
  return undefined;
}

/**
 * Starts the listeners in order into `started` (so a failure can stop those already up). A
 * damaged sandbox state costs the sandbox alone (issue 24 item 6): it says why and stays
 * unavailable until a recovery; the bank endpoints and the UI serve.
 */
export async function startListeners(
  core: ConsoleCore,
  options: ServeOptions,
  started: StartedListener[],
  log: (line: string) => void,
  team?: TeamGuard,
): Promise<void> {
  for (const listener of listenersFor(options)) {
    try {
      started.push(await listener.start(core, options, team));
    } catch (err) {
      if (listener.key === 'sandbox' && err instanceof ConsoleError && err.code === 'STATE_DAMAGED') {
        log(`the sandbox is not started: ${err.message}`);
        continue;
      }
      throw listenError(err, listener, options.host) ?? err;
    }
  }
}

/**
 * Ready-line keys in DESIGN.md's order (ready, ui, bank, sandbox), whatever the start order.
 *
 * @example
 * readyUrls(started); // {ui: 'http://127.0.0.1:7300/?token=…', bank: 'http://127.0.0.1:7301'}
 */
export function readyUrls(started: StartedListener[]): Partial<Record<ListenerKey, string>> {
  const urls: Partial<Record<ListenerKey, string>> = {};
  for (const key of READY_KEYS) {
    const l = started.find((s) => s.key === key);
    if (l) urls[key] = l.url;
  }
  return urls;
}

/** The core behind a laptop's page: its own, or a team hub once attached (re-attached at start). */
function attachable(core: ConsoleCore): AttachedCore {
  const pages = new AttachedCore({
    local: core,
    dataDir: core.options.dataDir,
    keychain: core.options.keychain ?? createOsKeychain(),
  });
  void pages.resume();
  return pages;
}
