/**
 * Test children bundled into a temporary folder (kill-child.ts, the vault's child) start the
 * store's and the keychain's workers as every host does: from built files next to the bundle
 * (electron/core/common/worker-file.ts looks in `./workers/` first). These are the files the
 * global setup built from the same sources (dist/workers).
 */
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const builtWorkers = fileURLToPath(new URL('../../dist/workers/', import.meta.url));

/** Copies the built worker files into `<dir>/workers/`, beside a bundle in `dir`. */
export async function workersBeside(dir: string): Promise<void> {
  await cp(builtWorkers, path.join(dir, 'workers'), { recursive: true });
}
