/**
 * Native modules and worker files in the packaged app. electron-builder.json unpacks from
 * app.asar the keychain binding (@napi-rs/keyring and its per-platform package), the database
 * binding (libsql, the small packages its entry requires, @libsql/*) and the worker threads'
 * files (dist/workers), because the OS loads a `.node` file only from a real path and workers
 * have no asar support: a path inside app.asar is "Cannot find module" there.
 *
 * The database binding loads in the main thread, where Electron's asar support redirects to
 * app.asar.unpacked by itself, and in the store's writer threads, which get its unpacked path
 * (store/db.ts libsqlPath). The workers' own files are found unpacked by
 * core/common/worker-file.ts. The keychain binding loads only in a worker (the 5 s deadline,
 * DESIGN.md "Secrets"): the packaged app hands the vault its unpacked path here.
 */
import { createRequire } from 'node:module';
import { unpackedPath } from '../core/common/worker-file';
import { DEFAULT_KEYCHAIN_TIMEOUT_MS, createOsKeychain } from '../core/vault/keychain';
import type { KeychainBackend } from '../core/vault/types';

/**
 * The OS keychain for the packaged app: the real one, with the worker pointed at the unpacked
 * binding. `resolve` is the main bundle's require.resolve (inside app.asar when packaged).
 */
export function packagedKeychain(
  resolve: (id: string) => string = createRequire(import.meta.url).resolve,
): KeychainBackend {
  return createOsKeychain({
    timeoutMs: DEFAULT_KEYCHAIN_TIMEOUT_MS,
    modulePath: unpackedPath(resolve('@napi-rs/keyring')),
  });
}
