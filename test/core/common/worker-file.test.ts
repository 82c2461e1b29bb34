/**
 * The worker threads are built files found from every host (issue 25 item 2,
 * electron/core/common/worker-file.ts): the build makes the ones the core asks for, and the
 * lookup finds them beside a CLI or main bundle, a bench server, the TypeScript sources, a test's
 * bundled child and in the packaged app's app.asar.unpacked, and says where it looked when none
 * is there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  unpackedPath,
  WORKER_DIRS,
  WORKER_NAMES,
  workerFile,
} from '../../../electron/core/common/worker-file';
import entries from '../../../scripts/worker-entries.json';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A temp tree with `files` (relative paths) present; its root. */
function layout(files: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dets-workers-'));
  made.push(dir);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  return dir;
}
const from = (dir: string, file: string) => pathToFileURL(path.join(dir, file)).href;
const found = (url: URL) => fileURLToPath(url);

describe('the built worker files', () => {
  it('are the ones the core asks for: scripts/worker-entries.json names each, from a source that exists', () => {
    expect(Object.keys(entries).sort()).toEqual([...WORKER_NAMES].sort());
    for (const source of Object.values(entries))
      expect(fs.existsSync(path.join(root, source)), source).toBe(true);
  });

  it('are built into dist/workers (the global setup ran the build), and the sources find them there', () => {
    for (const name of WORKER_NAMES) {
      const built = path.join(root, 'dist', 'workers', `${name}.mjs`);
      expect(fs.existsSync(built), built).toBe(true);
      expect(found(workerFile(name))).toBe(built);
      // A real module: no source text evaluated at run time.
      expect(fs.readFileSync(built, 'utf8')).not.toMatch(/\beval\b|new Function/);
    }
  });
});

describe('workerFile finds the file from every host', () => {
  it('beside the CLI and Electron main bundles: dist/workers', () => {
    const dir = layout(['dist/workers/writer-worker.mjs']);
    expect(found(workerFile('writer-worker', from(dir, 'dist/cli/dets-console.js')))).toBe(
      path.join(dir, 'dist/workers/writer-worker.mjs'),
    );
    expect(found(workerFile('writer-worker', from(dir, 'dist/main/main.js')))).toBe(
      path.join(dir, 'dist/workers/writer-worker.mjs'),
    );
  });

  it('the bench and its servers: their own dist/bench/workers first, never a stale dist/workers', () => {
    const dir = layout(['dist/workers/writer-worker.mjs', 'dist/bench/workers/writer-worker.mjs']);
    const benchOwn = path.join(dir, 'dist/bench/workers/writer-worker.mjs');
    expect(found(workerFile('writer-worker', from(dir, 'dist/bench/bench.mjs')))).toBe(benchOwn);
    expect(found(workerFile('writer-worker', from(dir, 'dist/bench/servers/bank.mjs')))).toBe(benchOwn);
  });

  it('a test child bundled into a temp folder: ./workers beside it', () => {
    const dir = layout(['workers/keychain-worker.mjs']);
    expect(found(workerFile('keychain-worker', from(dir, 'child.mjs')))).toBe(
      path.join(dir, 'workers/keychain-worker.mjs'),
    );
  });

  it('the packaged app: from main inside app.asar to the unpacked copy (workers cannot read app.asar)', () => {
    const dir = layout(['resources/app.asar.unpacked/dist/workers/writer-worker.mjs']);
    // app.asar itself is one archive file, which plain Node cannot look into.
    fs.writeFileSync(path.join(dir, 'resources/app.asar'), 'archive');
    expect(found(workerFile('writer-worker', from(dir, 'resources/app.asar/dist/main/main.js')))).toBe(
      path.join(dir, 'resources/app.asar.unpacked/dist/workers/writer-worker.mjs'),
    );
    expect(unpackedPath(path.join(dir, 'resources/app.asar/x.js'))).toBe(
      path.join(dir, 'resources/app.asar.unpacked/x.js'),
    );
  });

  it('a missing file is INTERNAL naming every place it looked, not a worker that dies later', () => {
    const dir = layout(['dist/cli/dets-console.js']);
    let failure: unknown;
    try {
      workerFile('writer-worker', from(dir, 'dist/cli/dets-console.js'));
    } catch (err) {
      failure = err;
    }
    expect(failure).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/writer-worker worker file is missing/),
    });
    const tried = (failure as { details: { tried: string[] } }).details.tried;
    expect(tried).toHaveLength(WORKER_DIRS.length);
    expect(tried).toContain(path.join(dir, 'dist/workers/writer-worker.mjs'));
    for (const t of tried) expect((failure as Error).message).toContain(t);
  });
});
