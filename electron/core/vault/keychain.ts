/**
 * The OS keychain (macOS Keychain, Windows Credential Manager, Secret Service on Linux) through
 * @napi-rs/keyring, always off the calling thread and always with a deadline.
 *
 * Threat model: this module moves one secret (a profile's vault key) between the vault and the
 * keychain. It never logs it, never puts it in an error (library messages are scrubbed of it),
 * and hands it to the worker only through workerData (memory, never argv or env).
 *
 * Why a worker per call: the library's Entry constructor blocks its thread synchronously while it
 * connects (toolchain.md section 3), and keychain calls can wait on prompts. Each call runs in a
 * fresh worker_threads Worker; after `timeoutMs` the caller gets KEYCHAIN_UNAVAILABLE and the
 * worker is terminated (and unref'd, so it never holds the process open by itself).
 * A thread stuck inside native code cannot be terminated, though, and Node joins such a thread
 * on exit; so on Linux the session bus is first probed from the event loop (dbus-probe.ts) and a
 * silent bus fails the call before any thread enters libdbus.
 *
 * Why pinned: on Linux the library silently falls back to the kernel keyring (keyutils) when no
 * Secret Service answers; keys there do not survive a reboot. The store is pinned to
 * `secret-service`, so that case fails loudly instead (DESIGN.md "Secrets").
 *
 * The worker is keychain-worker.ts, built as its own file (`dist/workers/keychain-worker.mjs`)
 * and started with `new Worker(url)`; it requires the library by the absolute path resolved here
 * (npm packages stay external), so it works from the TypeScript sources (vitest), the esbuild
 * bundles and Electron (common/worker-file.ts finds the file in each).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ConsoleError } from '../../contract/errors';
import { workerFile } from '../common';
import { probeSessionBus } from './dbus-probe';
import type { KeychainAnswer, KeychainRequest } from './keychain-worker';
import type { KeychainBackend } from './types';

/** The keychain service every vault key is filed under (the account is `vault-key:<profile_id>`). */
export const KEYCHAIN_SERVICE = 'DETS Console';
/**
 * How long one keychain call may take. macOS may stop the call on an "allow access" prompt the
 * user has to read and answer (after an app update changes its signature), so it gets a minute;
 * the Secret Service and the Windows Credential Manager answer without asking, and a wedged
 * D-Bus should not hang the console for long.
 */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = process.platform === 'darwin' ? 60_000 : 5000;

/** Every "no keychain" message ends with the one explicit alternative (never a silent fallback). */
export const PASSPHRASE_ADVICE = 'create a passphrase vault / set DETS_VAULT_PASSPHRASE';

export interface OsKeychainOptions {
  /** Each call (probe included) that takes longer rejects KEYCHAIN_UNAVAILABLE. Default 5 s (60 s on macOS). */
  timeoutMs?: number;
  /** Defaults to process.platform; chooses the store and the advice in errors. */
  platform?: NodeJS.Platform;
  /**
   * Where the session bus is looked up for the probe and named in errors; defaults to
   * process.env. The library itself always reads the real process environment.
   */
  env?: NodeJS.ProcessEnv;
  /** The module the worker requires; defaults to @napi-rs/keyring (tests pass a stand-in). */
  modulePath?: string;
}

type Call = Omit<KeychainRequest, 'modulePath' | 'linuxStore'>;

/**
 * Workers that timed out and have not ended yet. While one is stuck the keychain is known not to
 * answer, so further calls fail at once instead of stacking up more stuck threads.
 */
const stuckWorkers = new Set<Worker>();

export function createOsKeychain(options: OsKeychainOptions = {}): KeychainBackend {
  const timeoutMs = options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;

  const run = async (request: Call): Promise<KeychainAnswer> => {
    const started = Date.now();
    if (stuckWorkers.size > 0)
      throw timedOut(platform, timeoutMs, ' An earlier keychain call is still waiting.');
    if (platform === 'linux' && (await probeSessionBus(env, timeoutMs)) === 'silent') {
      throw timedOut(platform, timeoutMs, ' The session bus accepted a connection and never answered.');
    }
    const modulePath = options.modulePath ?? resolveKeyringModule();
    const remaining = Math.max(1, timeoutMs - (Date.now() - started));
    return inWorker(
      { ...request, modulePath, linuxStore: platform === 'linux' ? 'secret-service' : null },
      remaining,
      () => timedOut(platform, timeoutMs),
    );
  };

  const answer = async (request: Call): Promise<string | boolean | null> => {
    const result = await run(request);
    if (!result.ok) throw unavailable(platform, env, result.message);
    return result.value;
  };

  return {
    async get(service, account) {
      const value = await answer({ op: 'get', service, account });
      return typeof value === 'string' ? value : null;
    },
    async set(service, account, secret) {
      await answer({ op: 'set', service, account, secret });
    },
    async delete(service, account) {
      return (await answer({ op: 'delete', service, account })) === true;
    },
  };
}

function resolveKeyringModule(): string {
  try {
    return createRequire(import.meta.url).resolve('@napi-rs/keyring');
  } catch (err) {
    throw new ConsoleError(
      'KEYCHAIN_UNAVAILABLE',
      `The keychain library @napi-rs/keyring is not installed (${(err as Error).message.split('\n')[0]}): reinstall DETS Console (npm install), or ${PASSPHRASE_ADVICE}.`,
    );
  }
}

function inWorker(
  request: KeychainRequest,
  timeoutMs: number,
  onTimeout: () => ConsoleError,
): Promise<KeychainAnswer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const worker = new Worker(workerFile('keychain-worker'), { workerData: request });
    const timer = setTimeout(() => {
      settle(() => reject(onTimeout()));
      stuckWorkers.add(worker);
      worker.unref();
      void worker.terminate().catch(() => undefined);
    }, timeoutMs);
    worker.once('message', (message: KeychainAnswer) => settle(() => resolve(message)));
    worker.once('error', (err) =>
      settle(() => resolve({ ok: false, message: `the keychain worker failed: ${err.message}` })),
    );
    worker.once('exit', (code) => {
      stuckWorkers.delete(worker);
      settle(() =>
        resolve({ ok: false, message: `the keychain worker ended (exit ${code}) without an answer` }),
      );
    });
  });
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function timedOut(platform: NodeJS.Platform, timeoutMs: number, more = ''): ConsoleError {
  const why =
    platform === 'linux'
      ? ' (a wedged D-Bus session?)'
      : platform === 'darwin'
        ? ' (a Keychain prompt waiting for an answer?)'
        : '';
  const fix =
    platform === 'linux'
      ? 'restart the desktop session or the keyring daemon (gnome-keyring, KWallet)'
      : platform === 'darwin'
        ? 'answer or dismiss any Keychain prompt and unlock the login keychain'
        : 'check that Credential Manager works for this user';
  return new ConsoleError(
    'KEYCHAIN_UNAVAILABLE',
    `The OS keychain did not answer within ${seconds(timeoutMs)}${why}.${more} To fix: ${fix} and try again, or ${PASSPHRASE_ADVICE}.`,
  );
}

/** A library failure, in words that say what to do on this platform. */
export function unavailable(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, raw: string): ConsoleError {
  const cause = raw.trim() || 'no reason given';
  let message: string;
  if (platform === 'linux') {
    const bus = env.DBUS_SESSION_BUS_ADDRESS
      ? `DBUS_SESSION_BUS_ADDRESS=${env.DBUS_SESSION_BUS_ADDRESS}`
      : 'DBUS_SESSION_BUS_ADDRESS is not set';
    if (/prompt.*dismissed|dismissed/i.test(cause)) {
      message = `The Secret Service keyring is locked and its unlock prompt was dismissed (${cause}): unlock the login keyring (Seahorse, or gnome-keyring-daemon --unlock), or ${PASSPHRASE_ADVICE}.`;
    } else if (/no result found|does not exist at path|no such object/i.test(cause)) {
      message = `The Secret Service on the session bus has no unlocked default keyring (${cause}): create or unlock one (Seahorse, or gnome-keyring-daemon --unlock), or ${PASSPHRASE_ADVICE}.`;
    } else {
      message = `No Secret Service on the session bus (${bus}): install and unlock gnome-keyring or KWallet, or ${PASSPHRASE_ADVICE}. (${cause})`;
    }
  } else if (platform === 'darwin') {
    message = `The macOS Keychain refused the request (${cause}): unlock the login keychain and allow DETS Console to use it (Keychain Access), or ${PASSPHRASE_ADVICE}.`;
  } else if (platform === 'win32') {
    message = `Windows Credential Manager refused the request (${cause}): use a Windows account with a loaded user profile (not a service account) and check Credential Manager, or ${PASSPHRASE_ADVICE}.`;
  } else {
    message = `No OS keychain is supported on ${platform} (${cause}): ${PASSPHRASE_ADVICE}.`;
  }
  return new ConsoleError('KEYCHAIN_UNAVAILABLE', message);
}
