/**
 * One OS keychain call on a thread of its own (keychain.ts says why: the library blocks its
 * thread, and a call can wait on a prompt): the entry of a worker_threads Worker, built by
 * scripts/build.mjs as `dist/workers/keychain-worker.mjs` and started by keychain.ts with
 * `new Worker(url)` (common/worker-file.ts finds the file from every host). One request in
 * (workerData), one answer out, then the thread ends.
 *
 * Threat model: the request may carry the vault key (`set`). It arrives through workerData
 * (memory, never argv or env), is handed to the library only, and is scrubbed from any message
 * the library's failure carries before that message leaves the thread.
 *
 * Nothing runs when this module is imported on the main thread.
 */
import { createRequire } from 'node:module';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/** What a keychain call asks for. */
export interface KeychainRequest {
  /** The keychain library's entry (@napi-rs/keyring, unpacked from app.asar when packaged). */
  modulePath: string;
  op: 'get' | 'set' | 'delete';
  service: string;
  account: string;
  /** `set` only: the secret to store. */
  secret?: string;
  /** On Linux the store is pinned (DESIGN.md "Secrets"); null elsewhere. */
  linuxStore: 'secret-service' | null;
}

/** A keychain call's answer: the library's value, or its failure's message with no secret in it. */
export type KeychainAnswer = { ok: true; value: string | boolean | null } | { ok: false; message: string };

/** The part of @napi-rs/keyring's Entry a call uses. */
interface KeyringEntry {
  getPassword(): string | null | undefined;
  setPassword(secret: string): void;
  deletePassword(): boolean;
}
type EntryCtor = new (
  service: string,
  account: string,
  options?: { linux: { store: 'secret-service' } },
) => KeyringEntry;

/**
 * Runs one keychain call in the calling thread (the worker's, never the main thread's: it may
 * block). Never throws: a failure is an answer.
 *
 * @example
 * runKeychainCall({ modulePath, op: 'get', service: 'DETS Console', account, linuxStore: null });
 * // { ok: true, value: '…' } or { ok: false, message: '…' }
 */
export function runKeychainCall(request: KeychainRequest): KeychainAnswer {
  const { modulePath, op, service, account, secret, linuxStore } = request;
  const scrub = (text: unknown) => (secret ? String(text).split(secret).join('[secret]') : String(text));
  try {
    const { Entry } = createRequire(import.meta.url)(modulePath) as { Entry: EntryCtor };
    const entry = new Entry(service, account, linuxStore ? { linux: { store: linuxStore } } : undefined);
    let value: string | boolean | null | undefined = null;
    if (op === 'get') value = entry.getPassword();
    else if (op === 'set') entry.setPassword(secret as string);
    else value = entry.deletePassword();
    return { ok: true, value: value === undefined ? null : value };
  } catch (err) {
    const message = err && typeof err === 'object' && 'message' in err ? err.message : err;
    return { ok: false, message: scrub(message) };
  }
}

if (!isMainThread && parentPort) parentPort.postMessage(runKeychainCall(workerData as KeychainRequest));
