/**
 * What the installers carry of this repository, after the build: electron-builder.json `files`
 * resolved against the tree with the glob matcher electron-builder itself uses (app-builder-lib's
 * minimatch; `!` patterns exclude, the last matching pattern wins). The app must be complete, and
 * no source map, test, source or private file (.env, keys, certificates) may ship.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WORKER_NAMES } from '../../electron/core/common/worker-file';

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = JSON.parse(readFileSync(join(root, 'electron-builder.json'), 'utf8')) as { files: string[] };
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string };

const requireFromBuilder = createRequire(createRequire(import.meta.url).resolve('app-builder-lib'));
const { minimatch } = requireFromBuilder('minimatch') as {
  minimatch(path: string, pattern: string, options?: { dot?: boolean }): boolean;
};

/** Every file of the tree, as a relative POSIX path, minus what is never the app's. */
function tree(dir = root): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const rel = relative(root, full).split(sep).join('/');
    if (['node_modules', '.git', 'release', 'test-results'].includes(rel)) continue;
    if (entry.isDirectory()) out.push(...tree(full));
    else out.push(rel);
  }
  return out;
}

/** electron-builder's `files` semantics: included when the last pattern that matches is not a negation. */
function included(path: string): boolean {
  let inside = false;
  for (const pattern of config.files) {
    const negated = pattern.startsWith('!');
    if (minimatch(path, negated ? pattern.slice(1) : pattern, { dot: true })) inside = !negated;
  }
  return inside;
}

const PRIVATE = [
  /\.map$/,
  /(^|\/)\.env(\.|$)/,
  /\.(pem|key|p12|pfx|crt|cer|der|jks|keystore)$/,
  /(^|\/)id_(rsa|ecdsa|ed25519)/,
  /(^|\/)\.npmrc$/,
  /^(test|scripts|electron|renderer|docs|\.github|\.ci)\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /\.tsx?$/,
];

describe('the files the installers include, after npm run build', () => {
  // dist/ is built once for the run by test/support/global-setup.ts.
  const files = tree().filter(included);

  it('are the whole built app: main, preload, renderer, the worker threads and package.json', () => {
    for (const f of [
      'package.json',
      pkg.main,
      'dist/preload/preload.cjs',
      'dist/renderer/index.html',
      // The scenario files' JSON Schema ships with the app (issue 28: "$schema" points at it).
      'schemas/scenario.schema.json',
      ...WORKER_NAMES.map((name) => `dist/workers/${name}.mjs`),
    ])
      expect(files, f).toContain(f);
    expect(files.some((f) => /^dist\/renderer\/assets\/.+\.js$/.test(f))).toBe(true);
    for (const f of files) expect(existsSync(join(root, f)), f).toBe(true);
  });

  it('hold no source map, test, source or private file', () => {
    expect(files.filter((f) => PRIVATE.some((re) => re.test(f)))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/cli/'))).toEqual([]);
  });

  it('leave out the source maps the build does write', () => {
    const maps = tree().filter((f) => f.startsWith('dist/') && f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    expect(maps.filter(included)).toEqual([]);
  });

  it('would catch a private file dropped into dist/, which the globs alone let through', () => {
    for (const f of ['dist/main/.env', 'dist/renderer/signing.pem', 'dist/renderer/id_ed25519']) {
      expect(included(f), f).toBe(true);
      expect(
        PRIVATE.some((re) => re.test(f)),
        f,
      ).toBe(true);
    }
  });
});
