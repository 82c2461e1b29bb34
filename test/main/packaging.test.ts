/**
 * Packaging, checked as far as this machine allows: `npm run dist` needs Electron's release
 * zips, which cannot be downloaded here. So: the config is validated against electron-builder's
 * own schema, everything it references exists, and on Linux an offline `electron-builder --dir`
 * runs with a stand-in Electron distribution (a file carrying the fuse wire) to check what goes
 * into app.asar and which fuses get flipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { listPackage, extractFile } from '@electron/asar';
import type { Configuration } from 'app-builder-lib';
import { validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_NAME } from '../../electron/core/version';
import { WORKER_NAMES } from '../../electron/core/common/worker-file';
import { BUSY_TIMEOUT_MS, openDatabaseFile } from '../../electron/core/store/db';
import { DEFAULT_RETENTION } from '../../electron/core/store/sqlite-store';
import type { WriterReply } from '../../electron/core/store/writer-protocol';
import { packagedKeychain } from '../../electron/main/native-modules';

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = JSON.parse(readFileSync(join(root, 'electron-builder.json'), 'utf8')) as Configuration & {
  files: string[];
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main: string;
  productName: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/**
 * The folders under node_modules of the production dependencies and theirs, optional ones
 * included when installed (npm's flat layout; a nested node_modules is copied with its parent).
 */
function productionPackages(dir: string): string[] {
  const seen = new Set<string>();
  const visit = (manifest: {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  }) => {
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const path = join(dir, 'node_modules', name, 'package.json');
      if (seen.has(name) || !existsSync(path)) continue;
      seen.add(name);
      visit(JSON.parse(readFileSync(path, 'utf8')) as typeof manifest);
    }
  };
  visit(pkg);
  return [...seen];
}

const noDebug = { isEnabled: false, add() {} } as unknown as Parameters<typeof validateConfiguration>[1];

/** Decodes the PNGs scripts/make-icon.mjs writes (8-bit RGBA, no interlace, filter 0 rows). */
function readPng(buf: Buffer) {
  expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  let ihdr: Buffer | undefined;
  const idat: Buffer[] = [];
  const types: string[] = [];
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('ascii', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    types.push(type);
    if (type === 'IHDR') ihdr = data;
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(types[0]).toBe('IHDR');
  expect(types.at(-1)).toBe('IEND');
  const width = ihdr!.readUInt32BE(0);
  const height = ihdr!.readUInt32BE(4);
  return { width, height, bitDepth: ihdr![8], colorType: ihdr![9], raw: inflateSync(Buffer.concat(idat)) };
}

describe('electron-builder.json', () => {
  it('passes electron-builder’s own schema validation (which does reject a bad option)', async () => {
    await expect(validateConfiguration(structuredClone(config), noDebug)).resolves.toBeUndefined();
    await expect(
      validateConfiguration({ ...structuredClone(config), bogusOption: 1 } as never, noDebug),
    ).rejects.toThrow(/bogusOption/);
  });

  it('names the app as package.json and the core do, so userData is the shared profile folder', () => {
    expect(config.appId).toBe('com.dets.console');
    expect(config.productName).toBe('DETS Console');
    expect(pkg.productName).toBe(config.productName);
    expect(APP_NAME).toBe(config.productName);
  });

  it('packs the built app: main (package.json main), preload, renderer and the worker threads', () => {
    const covered = (path: string) =>
      config.files.some(
        (pattern) => pattern === path || (pattern.endsWith('/**') && path.startsWith(pattern.slice(0, -2))),
      );
    for (const path of [
      'package.json',
      pkg.main,
      'dist/preload/preload.cjs',
      'dist/renderer/index.html',
      ...WORKER_NAMES.map((name) => `dist/workers/${name}.mjs`),
    ]) {
      expect(covered(path), path).toBe(true);
    }
    expect(config.files).not.toContain('dist/cli/**');
    expect(pkg.devDependencies.electron).toBeDefined(); // electron-builder requires it there
    expect(pkg.dependencies.electron).toBeUndefined();
  });

  it('targets AppImage + deb, dmg with hardened runtime, and nsis', () => {
    expect(config.directories?.buildResources).toBe('build');
    expect(config.linux).toMatchObject({ target: ['AppImage', 'deb'], category: 'Development' });
    expect(config.linux?.maintainer).toMatch(/^.+ <[^@\s]+@[^@\s]+>$/);
    expect(config.mac).toMatchObject({
      target: ['dmg'],
      hardenedRuntime: true,
      entitlements: 'build/entitlements.mac.plist',
    });
    expect(config.win).toMatchObject({ target: ['nsis'] });
  });

  it('turns off the fuses that let the signed binary run as Node or be inspected, and checks app.asar', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      // The app is read only from app.asar, and only an app.asar whose hash the signed binary
      // carries (enforced by Electron on macOS and Windows).
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('unpacks from app.asar what loads in a worker: the worker files, the keychain binding, libsql and what its entry requires', () => {
    expect(config.asarUnpack).toEqual([
      'dist/workers/**',
      'node_modules/@napi-rs/keyring*/**',
      'node_modules/libsql/**',
      'node_modules/@neon-rs/load/**',
      'node_modules/detect-libc/**',
      'node_modules/@libsql/**',
    ]);
    // libsql's entry requires exactly these: a worker cannot reach them inside app.asar.
    const libsql = JSON.parse(readFileSync(join(root, 'node_modules/libsql/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(libsql.dependencies).sort()).toEqual(['@neon-rs/load', 'detect-libc']);
  });

  it('references files that exist', () => {
    const referenced = [
      config.linux?.icon,
      config.mac?.icon,
      config.win?.icon,
      config.mac?.entitlements,
      config.mac?.entitlementsInherit,
    ];
    for (const file of referenced) {
      expect(typeof file, String(file)).toBe('string');
      expect(existsSync(join(root, file as string)), String(file)).toBe(true);
    }
  });

  it('grants the hardened runtime only JIT', () => {
    const plist = readFileSync(join(root, 'build/entitlements.mac.plist'), 'utf8');
    expect(plist).toMatch(/<plist version="1.0">/);
    const keys = [...plist.matchAll(/<key>([^<]+)<\/key>\s*<true\/>/g)].map((m) => m[1]);
    expect(keys).toEqual(['com.apple.security.cs.allow-jit']);
  });
});

describe('build/icon.png', () => {
  it('is a 512x512 RGBA PNG, transparent in the corners and opaque in the middle', () => {
    const { width, height, bitDepth, colorType, raw } = readPng(readFileSync(join(root, 'build/icon.png')));
    expect({ width, height, bitDepth, colorType }).toEqual({
      width: 512,
      height: 512,
      bitDepth: 8,
      colorType: 6,
    });
    const alpha = (x: number, y: number) => raw[y * (512 * 4 + 1) + 1 + x * 4 + 3];
    expect(alpha(0, 0)).toBe(0);
    expect(alpha(511, 511)).toBe(0);
    expect(alpha(256, 256)).toBe(255);
  });

  it('is what scripts/make-icon.mjs draws', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dets-icon-'));
    try {
      const out = join(dir, 'icon.png');
      const r = spawnSync(process.execPath, [join(root, 'scripts/make-icon.mjs'), out], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(
        readPng(await readFile(out)).raw.equals(readPng(readFileSync(join(root, 'build/icon.png'))).raw),
      ).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

// The fuse wire as in a real Electron binary: sentinel, version 1, length, one byte per fuse
// ('1' on, '0' off), in @electron/fuses' order: runAsNode, cookieEncryption, nodeOptions,
// nodeCliInspect, asarIntegrity, onlyLoadAppFromAsar, v8Snapshot, grantFileProtocolExtraPrivileges.
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const ELECTRON_DEFAULT_FUSES = '10110001';

describe.skipIf(process.platform !== 'linux')(
  'electron-builder --dir, offline with a stand-in Electron',
  () => {
    let base: string;
    let unpacked: string;
    let result: ReturnType<typeof spawnSync>;

    beforeAll(async () => {
      // dist/ is built once by test/support/global-setup.ts.
      expect(existsSync(join(root, pkg.main)) && existsSync(join(root, 'dist/renderer/index.html'))).toBe(
        true,
      );
      base = await mkdtemp(join(tmpdir(), 'dets-pack-'));
      // Package a snapshot: other test files rebuild dist/ while this one runs.
      const project = join(base, 'project');
      const parts = [
        'package.json',
        'package-lock.json',
        'electron-builder.json',
        'build',
        'dist/main',
        'dist/preload',
        'dist/renderer',
        'dist/workers',
      ];
      for (const part of parts) await cp(join(root, part), join(project, part), { recursive: true });
      // A real node_modules with the production dependencies only, as `npm ci` leaves them (the
      // installed optional platform packages included): electron-builder asks `npm ls` what to
      // pack, and a symlinked node_modules makes every package "extraneous", so the native
      // bindings would be silently left out. electron's package.json gives it Electron's version.
      for (const dir of productionPackages(root)) {
        await cp(join(root, 'node_modules', dir), join(project, 'node_modules', dir), { recursive: true });
      }
      await mkdir(join(project, 'node_modules', 'electron'), { recursive: true });
      await cp(
        join(root, 'node_modules', 'electron', 'package.json'),
        join(project, 'node_modules', 'electron', 'package.json'),
      );
      const dist = join(base, 'electron-dist');
      await mkdir(dist);
      await writeFile(join(dist, 'electron'), `#!/bin/sh\n# ${SENTINEL}\x01\x08${ELECTRON_DEFAULT_FUSES}\n`);
      await chmod(join(dist, 'electron'), 0o755);
      result = spawnSync(
        join(root, 'node_modules/.bin/electron-builder'),
        ['--linux', 'dir', `-c.electronDist=${dist}`, `-c.directories.output=${join(base, 'release')}`],
        { cwd: project, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: 'true' } },
      );
      unpacked = join(base, 'release', 'linux-unpacked');
    }, 150_000);
    afterAll(async () => {
      if (base) await rm(base, { recursive: true, force: true, maxRetries: 5 });
    });

    it('packages without a download', () => {
      expect(
        result.status,
        `${String(result.error ?? '')}\n${String(result.stdout)}\n${String(result.stderr)}`,
      ).toBe(0);
      expect(existsSync(join(unpacked, 'dets-console'))).toBe(true);
    });

    it('puts the built app and the production dependencies in app.asar, and nothing else of the repo', () => {
      const asar = join(unpacked, 'resources', 'app.asar');
      const files = listPackage(asar, { isPack: false }).map((f) => f.replace(/\\/g, '/'));
      for (const f of [
        '/package.json',
        `/${pkg.main}`,
        '/dist/preload/preload.cjs',
        '/dist/renderer/index.html',
        ...WORKER_NAMES.map((name) => `/dist/workers/${name}.mjs`),
      ]) {
        expect(files, f).toContain(f);
      }
      for (const dep of Object.keys(pkg.dependencies))
        expect(files, dep).toContain(`/node_modules/${dep}/package.json`);
      const leaked = files.filter(
        (f) =>
          f.endsWith('.map') ||
          /^\/(electron|renderer|test|scripts|build|dist\/cli)\//.test(f) ||
          /^\/node_modules\/(electron|electron-builder|vitest|typescript|vite|react)\//.test(f),
      );
      expect(leaked).toEqual([]);
      const packed = JSON.parse(extractFile(asar, 'package.json').toString('utf8')) as {
        main: string;
        productName: string;
      };
      expect(packed).toMatchObject({ main: pkg.main, productName: 'DETS Console' });
    });

    it('flips the fuses as configured', async () => {
      const binary = await readFile(join(unpacked, 'dets-console'), 'latin1');
      const at = binary.indexOf(SENTINEL) + SENTINEL.length;
      // runAsNode, cookieEncryption, nodeOptions, nodeCliInspect, asarIntegrity, onlyLoadAppFromAsar…
      expect(binary.slice(at + 2, at + 10)).toBe('00001100');
    });

    it('unpacks the native bindings, which load from there (the keychain’s in a worker, as the app does)', async () => {
      const unpackedDir = join(unpacked, 'resources', 'app.asar.unpacked', 'node_modules');
      const asar = join(unpacked, 'resources', 'app.asar');
      const nodeFiles = listPackage(asar, { isPack: false })
        .map((f) => f.replace(/\\/g, '/'))
        .filter((f) => f.endsWith('.node'));
      expect(nodeFiles.length).toBeGreaterThanOrEqual(2);
      for (const f of nodeFiles)
        expect(existsSync(join(unpacked, 'resources', 'app.asar.unpacked', f)), f).toBe(true);
      expect(existsSync(join(unpackedDir, 'libsql', 'index.js'))).toBe(true);

      // The database binding is a valid Node-API module as unpacked.
      const require = createRequire(import.meta.url);
      const libsqlBinding = require(join(unpackedDir, '@libsql', 'linux-x64-gnu', 'index.node')) as object;
      expect(Object.keys(libsqlBinding).length).toBeGreaterThan(0);

      // The keychain: main resolves the binding inside app.asar; the worker gets the unpacked path
      // and answers from the Secret Service (null: no such entry), so the binding loaded there.
      const keychain = packagedKeychain(() => join(asar, 'node_modules', '@napi-rs', 'keyring', 'index.js'));
      await expect(keychain.get('dets-console-packaging-test', 'absent')).resolves.toBeNull();
    });

    it('ships the worker files unpacked, and they run from there with only unpacked modules (plain Node cannot read app.asar, as a worker cannot)', async () => {
      const resources = join(unpacked, 'resources');
      const workers = join(resources, 'app.asar.unpacked', 'dist', 'workers');
      for (const name of WORKER_NAMES) expect(existsSync(join(workers, `${name}.mjs`)), name).toBe(true);
      const modules = join(resources, 'app.asar.unpacked', 'node_modules');
      const run = <T>(name: string, workerData: object, message?: object): Promise<T> =>
        new Promise<T>((resolve, reject) => {
          const w = new Worker(pathToFileURL(join(workers, `${name}.mjs`)), { workerData });
          w.once('message', (m: T) => {
            void w.terminate();
            resolve(m);
          });
          w.once('error', reject);
          if (message) w.postMessage(message);
        });

      // The writer: libsql (and the packages its entry requires) from app.asar.unpacked.
      const dir = await mkdtemp(join(tmpdir(), 'dets-pack-db-'));
      try {
        const file = join(dir, 'console.db');
        openDatabaseFile(file).close(); // the schema, made by the main thread as always
        const reply = await run<WriterReply & { id: number }>(
          'writer-worker',
          {
            libsql: join(modules, 'libsql', 'index.js'),
            file,
            busyTimeoutMs: BUSY_TIMEOUT_MS,
            caps: DEFAULT_RETENTION,
            mode: 'write',
            threadName: 'dets-writer',
          },
          {
            id: 1,
            type: 'exec',
            steps: [['INSERT INTO meta (key, value) VALUES (?, ?)', ['packaged', 'yes']]],
          },
        );
        expect(reply).toMatchObject({ id: 1, ok: true });
      } finally {
        await rm(dir, { recursive: true, force: true, maxRetries: 5 });
      }

      // The keychain worker: the binding from app.asar.unpacked, answering from the Secret Service.
      const answer = await run('keychain-worker', {
        modulePath: join(modules, '@napi-rs', 'keyring', 'index.js'),
        op: 'get',
        service: 'dets-console-packaging-test',
        account: 'absent',
        linuxStore: 'secret-service',
      });
      expect(answer).toEqual({ ok: true, value: null });
    });
  },
);
