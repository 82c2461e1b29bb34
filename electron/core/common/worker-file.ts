/**
 * Where a worker thread's built file is (issue 25 item 2). The console's workers (the database's
 * writer, the keychain's calls) are modules of their own, each built by esbuild as its own entry
 * (scripts/build.mjs: `dist/workers/<name>.mjs`; scripts/bench.mjs: `dist/bench/workers/`) and
 * started with `new Worker(url)`: no source text evaluated, and what a test imports is what runs.
 *
 * The file is looked up next to the module asking, which is a different place in every host:
 *
 * | host                      | the asking module (import.meta.url)       | the worker file                        |
 * | ------------------------- | ----------------------------------------- | -------------------------------------- |
 * | CLI, `serve`              | `dist/cli/dets-console.js`                | `dist/workers/` (`../workers/`)        |
 * | Electron main             | `dist/main/main.js`                       | `dist/workers/` (`../workers/`)        |
 * | packaged app              | `…/app.asar/dist/main/main.js`            | `…/app.asar.unpacked/dist/workers/`    |
 * | the bench                 | `dist/bench/bench.mjs`                    | `dist/bench/workers/` (`./workers/`)   |
 * | the bench's servers       | `dist/bench/servers/*.mjs`                | `dist/bench/workers/` (`../workers/`)  |
 * | TypeScript sources        | `electron/core/common/worker-file.ts`     | `dist/workers/` (`../../../dist/…`)    |
 * | a test's bundled child    | `<tmp>/child.mjs`                         | `<tmp>/workers/` (`./workers/`)        |
 *
 * Workers have no asar support (a path inside app.asar is "Cannot find module" there), so the
 * packaged app ships them unpacked (electron-builder.json asarUnpack) and the path is rewritten
 * to app.asar.unpacked, as for the native bindings they load (electron/main/native-modules.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConsoleError } from '../../contract/errors';

/**
 * The workers the build makes (scripts/worker-entries.json names the same, with their entry
 * sources; test/core/common/worker-file.test.ts holds the two together).
 */
export const WORKER_NAMES = ['writer-worker', 'keychain-worker'] as const;
/** One of WORKER_NAMES. */
export type WorkerName = (typeof WORKER_NAMES)[number];

/** Where a worker file may be, relative to the asking module's folder, nearest first. */
export const WORKER_DIRS = ['./workers/', '../workers/', '../../../dist/workers/'] as const;

/**
 * `…/resources/app.asar/x/y.js` → `…/resources/app.asar.unpacked/x/y.js`; any other path as it is.
 *
 * @example
 * unpackedPath('/opt/DETS Console/resources/app.asar/dist/workers/writer-worker.mjs', '/');
 * // '/opt/DETS Console/resources/app.asar.unpacked/dist/workers/writer-worker.mjs'
 */
export function unpackedPath(resolved: string, separator: string = path.sep): string {
  const packed = `${separator}app.asar${separator}`;
  return resolved.replace(packed, `${separator}app.asar.unpacked${separator}`);
}

const found = new Map<string, URL>();

/**
 * The file URL of the built worker `name` for the module at `from` (a file URL; by default this
 * module's own, which is the bundle's once bundled). Throws INTERNAL naming every place it looked
 * when none has it (an incomplete build).
 *
 * @example
 * new Worker(workerFile('writer-worker'), { workerData });
 */
export function workerFile(name: WorkerName, from: string = import.meta.url): URL {
  const key = `${name} ${from}`;
  const known = found.get(key);
  if (known) return known;
  const tried: string[] = [];
  for (const dir of WORKER_DIRS) {
    const file = unpackedPath(fileURLToPath(new URL(`${dir}${name}.mjs`, from)));
    if (fs.existsSync(file)) {
      const url = pathToFileURL(file);
      found.set(key, url);
      return url;
    }
    tried.push(file);
  }
  throw new ConsoleError(
    'INTERNAL',
    `The ${name} worker file is missing (looked for ${tried.join(', ')}): this installation of DETS Console is incomplete; rebuild it (npm run build) or reinstall it.`,
    { worker: name, tried },
  );
}
