/**
 * One owner per profile (DESIGN.md "Storage", issue 24 item 5), with real processes: the built
 * CLI's `serve`, `sandbox` and `store recover`, and a desktop-app core in this process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { createConsoleCore } from '../../../electron/core/console-core';
import { claimProfile, readOwner } from '../../../electron/core/store/owner';
import { runBuiltCli, spawnLongRunning, spawnServe, type ServeChild } from '../../cli/helpers';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const SERVE = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];

async function startServe(dir: string): Promise<ServeChild> {
  const s = spawnServe([...SERVE, '--data-dir', dir]);
  await s.ready;
  return s;
}

/**
 * The folder's names and the database's inode: what "nothing was changed" compares beside a live
 * owner (which itself writes to the database): nothing set aside, no copy, the same file.
 */
function snapshotOf(dir: string): string[] {
  return [...fs.readdirSync(dir).sort(), `inode ${fs.statSync(path.join(dir, 'console.db')).ino}`];
}

describe('one owner per profile', () => {
  it('a second serve, a sandbox and a desktop-app core beside a serve are refused, naming its pid and host', async () => {
    const dir = tempDir();
    const serve = await startServe(dir);
    const pid = serve.child.pid!;
    try {
      expect(readOwner(dir)).toMatchObject({ pid, role: 'serve', hostname: os.hostname() });
      const named = new RegExp(`serve \\(pid ${pid} on host ${os.hostname().replace(/\W/g, '\\$&')}`);

      const second = spawnServe([...SERVE, '--data-dir', dir]);
      const s2 = await second.exit;
      expect(s2.code).toBe(2);
      expect(second.stderr().trim().split('\n')).toHaveLength(1);
      expect(second.stderr()).toMatch(named);

      const sandbox = spawnLongRunning('sandbox', ['--json', '--port', '0', '--data-dir', dir]);
      expect((await sandbox.exit).code).toBe(2);
      expect(sandbox.stderr()).toMatch(named);

      const app = createConsoleCore({ dataDir: dir, host: 'desktop' });
      await expect(app).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(named) });

      // One-shot commands still run beside the owner.
      const listed = await runBuiltCli(['events', '--data-dir', dir, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    // A clean stop lets go: the next owner starts, and its record replaced the first's.
    const next = await startServe(dir);
    expect(readOwner(dir)?.pid).toBe(next.child.pid);
    expect((await next.stop()).code).toBe(0);
    expect(fs.existsSync(path.join(dir, 'owner.json'))).toBe(false);
  });

  it('three serves started at the same moment: exactly one runs, the others are refused', async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    const all = [0, 1, 2].map(() => spawnServe([...SERVE, '--data-dir', dir]));
    try {
      const outcomes = await Promise.all(
        all.map((s) =>
          Promise.race([s.ready.then(() => 'ready' as const), s.exit.then((e) => e.code)]).catch(
            () => 'failed',
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'ready')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 2)).toHaveLength(2);
      const winner = all[outcomes.indexOf('ready')]!;
      expect(readOwner(dir)?.pid).toBe(winner.child.pid);
      for (const s of all.filter((_, i) => outcomes[i] === 2))
        expect(s.stderr()).toContain(`pid ${winner.child.pid}`);
    } finally {
      for (const s of all) if (s.child.exitCode === null) expect((await s.stop()).code).toBe(0);
    }
  });

  it('a serve killed with -9 leaves no claim behind: the next owner and a recovery both go ahead', async () => {
    const dir = tempDir();
    const serve = await startServe(dir);
    serve.kill();
    await serve.exit;
    // Its record is still there, naming a dead pid; the lock went with the process.
    expect(readOwner(dir)?.pid).toBe(serve.child.pid);
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    const next = await startServe(dir);
    expect((await next.stop()).code).toBe(0);
  });

  it('`store recover` is refused beside a running `sandbox`, naming it, and changes nothing', async () => {
    const dir = tempDir();
    const sandbox = spawnLongRunning('sandbox', ['--json', '--port', '0', '--data-dir', dir]);
    await sandbox.ready;
    try {
      const before = snapshotOf(dir);
      const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`sandbox (pid ${sandbox.child.pid}`);
      expect(r.stderr).toMatch(/stop it first.*Nothing was changed/);
      expect(snapshotOf(dir)).toEqual(before);
    } finally {
      expect((await sandbox.stop()).code).toBe(0);
    }
  });

  it('an owner started during a recovery waits for it, saying so, and opens nothing until it ends', async () => {
    const dir = tempDir();
    // This process plays a running `store recover` (the same claim it takes).
    const recovery = await claimProfile(dir, 'store recover');
    const serve = spawnServe([...SERVE, '--data-dir', dir]);
    try {
      await expect
        .poll(() => serve.stderr(), { timeout: 20_000 })
        .toContain(`waiting for store recover (pid ${process.pid}) to finish…`);
      // Still waiting: no database was opened or created.
      await new Promise((r) => setTimeout(r, 500));
      expect(fs.existsSync(path.join(dir, 'console.db'))).toBe(false);
      expect(serve.child.exitCode).toBeNull();
      recovery.release();
      await serve.ready;
      expect(readOwner(dir)?.pid).toBe(serve.child.pid);
    } finally {
      recovery.release();
      expect((await serve.stop()).code).toBe(0);
    }
  });

  it('a claim in this process refuses a second one here too, and a recovery refuses while an owner holds it', async () => {
    const dir = tempDir();
    const first = await claimProfile(dir, 'desktop app');
    try {
      const again = await claimProfile(dir, 'serve').catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ConsoleError);
      expect((again as ConsoleError).message).toContain(`desktop app (pid ${process.pid}`);
      const recover = await claimProfile(dir, 'store recover').catch((e: unknown) => e);
      expect((recover as ConsoleError).message).toMatch(/stop it first/);
    } finally {
      first.release();
      first.release();
    }
    (await claimProfile(dir, 'store recover')).release();
  });
});
