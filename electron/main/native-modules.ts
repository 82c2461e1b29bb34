/**
 * Native modules in the packaged app. electron-builder.json unpacks the keychain binding
 * (@napi-rs/keyring and its per-platform package) and the database binding (libsql, @libsql/*)
 * from app.asar, because the OS loads a `.node` file only from a real path.
 *
 * The database binding loads in the main thread, where Electron's asar support redirects to
 * app.asar.unpacked by itself. The keychain binding loads in a worker_threads Worker (the 5 s
 * deadline, DESIGN.md "Secrets"), and workers have no asar support: a path inside app.asar is
 * "Cannot find module" there. So the packaged app hands the vault the unpacked path.
 */
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { DEFAULT_KEYCHAIN_TIMEOUT_MS, createOsKeychain } from '../core/vault/keychain';
import type { KeychainBackend } from '../core/vault/types';

/** `…/resources/app.asar/node_modules/x/index.js` → `…/resources/app.asar.unpacked/node_modules/x/index.js`. */
export function unpackedPath(resolved: string, separator: string = sep): string {
  const packed = `${separator}app.asar${separator}`;
  return resolved.replace(packed, `${separator}app.asar.unpacked${separator}`);
}

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
