import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'dets-start-'));
  // dist/ is built once by test/support/global-setup.ts.
  expect(existsSync(join(root, 'dist/cli/dets-console.js'))).toBe(true);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

describe('npm start without the Electron binary', () => {
  it('explains in one line, runs browser mode, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'scripts/start.mjs'),
        // --no-build: other test files read dist/ while this one runs.
        '--no-build',
        '--',
        '--ui-port',
        '0',
        '--bank-port',
        '0',
        '--sandbox-port',
        '0',
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          CI: 'true',
          DETS_DATA_DIR: join(base, 'profile'),
          // An empty folder as Electron's dist: the binary is "not installed", even on a
          // machine where it is.
          ELECTRON_OVERRIDE_DIST_PATH: join(base, 'no-electron'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    try {
      await expect
        .poll(() => stdout, { timeout: 20_000, interval: 100 })
        .toMatch(/http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/);
    } catch (err) {
      child.kill('SIGKILL');
      throw new Error(`no browser-mode URL; stdout: ${stdout}\nstderr: ${stderr}`, { cause: err });
    }

    const explanation = stderr.split('\n').filter((l) => l.includes('not installed'));
    expect(explanation).toHaveLength(1);
    expect(explanation[0]).toMatch(/Electron's binary is not installed/);
    expect(explanation[0]).toMatch(/install-electron/);
    expect(explanation[0]).toMatch(/ELECTRON_MIRROR/);
    expect(explanation[0]).toMatch(/starting browser mode instead/);
    expect(stdout).not.toMatch(/not installed/);
    expect(stdout).toContain(join(base, 'profile'));

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe.skipIf(process.platform === 'win32')('npm start with an Electron binary', () => {
  it('runs it on the app with the extra arguments, never downloading, and passes its exit code on', async () => {
    const dist = join(base, 'electron-dist');
    const exe = join(
      dist,
      process.platform === 'darwin' ? 'Electron.app/Contents/MacOS/Electron' : 'electron',
    );
    const record = join(base, 'electron-args.txt');
    await mkdir(dirname(exe), { recursive: true });
    await writeFile(
      exe,
      `#!/bin/sh\nprintf '%s\\n' "run-as-node=$ELECTRON_RUN_AS_NODE" "$PWD" "$@" > "${record}"\nexit 3\n`,
    );
    await chmod(exe, 0o755);

    const r = spawnSync(
      process.execPath,
      [join(root, 'scripts/start.mjs'), '--no-build', '--', '--inspect=0'],
      {
        cwd: root,
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist, ELECTRON_RUN_AS_NODE: '1' },
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(3);
    expect(r.stderr).not.toMatch(/not installed/);
    const [runAsNode, cwd, ...args] = (await readFile(record, 'utf8')).trim().split('\n');
    expect(runAsNode).toBe('run-as-node='); // it would turn Electron into plain Node
    expect(cwd).toBe(root.replace(/\/$/, ''));
    expect(args).toEqual(['.', '--inspect=0']);
  });
});
