/**
 * One-shot commands that write the profile's database and a recovery (DESIGN.md "Storage";
 * issue 24 items 5 and 7): `jwt sign` records the pair it signed in console.db, and a
 * `store recover` running meanwhile would set the file aside with that write in it. A one-shot
 * writer waits for a running recovery (saying so on stderr, as an owner does), and a recovery
 * waits for the one-shot writers writing when it starts. Real processes: the built CLI's
 * `store recover` and `jwt sign` on a damaged profile.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../electron/core/store/db';
import {
  claimProfile,
  fenceOneShotWriters,
  holdForOneShotWrite,
  readOwner,
  type ProfileOwner,
} from '../../../electron/core/store/owner';
import { CLI, ROOT, runBuiltCli } from '../../cli/helpers';
import { until } from '../../cli/support/until';
import { removeTempDirs, storeAndDamage, tempDir } from './helpers';

afterAll(removeTempDirs);

const ENV = { DETS_VAULT_PASSPHRASE: 'one-shot writers test passphrase' };

/** A profile with a signing key `k1` and `events` notifications, one page of them overwritten. */
async function damagedProfile(events: number): Promise<string> {
  const dir = tempDir();
  const key = await runBuiltCli(['keys', 'generate', '--kid', 'k1', '--data-dir', dir], { env: ENV });
  expect(key.code, key.stderr).toBe(0);
  await storeAndDamage(dir, events);
  return dir;
}

/** This process's environment with the vault's passphrase, and no DETS_DATA_DIR (the flag says where). */
function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...ENV };
  delete env.DETS_DATA_DIR;
  return env;
}

/** A CLI process whose output is read as it comes; `done` when it has exited. */
function spawnCli(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null }>((resolve) =>
    child.on('close', (code) => resolve({ code })),
  );
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

/** Polls `test` every 20 ms, at most a minute. */
const waitFor = (what: string, test: () => boolean) =>
  until(what, () => (test() ? true : undefined), { tries: 3000, everyMs: 20 });

/** The subs of the pairs the live database holds. */
function signedSubs(dir: string): string[] {
  const db = openDatabase(dir, { readOnly: true });
  try {
    return db
      .prepare('SELECT sub FROM signed_pairs')
      .all()
      .map((r) => String(r.sub));
  } finally {
    db.close();
  }
}

describe('one-shot writers and a recovery', () => {
  it('`jwt sign` during a `store recover` waits for it, saying so, and its pair is in the live database', async () => {
    const dir = await damagedProfile(60_000);
    const recovery = spawnCli(['store', 'recover', '--data-dir', dir]);
    let sign: ReturnType<typeof spawnCli> | null = null;
    try {
      await waitFor("the recovery's claim", () => readOwner(dir)?.role === 'store recover');
      const recoverPid = recovery.child.pid!;
      const sub = `one-shot-${randomUUID()}@bank.example`;
      sign = spawnCli([
        'jwt',
        'sign',
        '--kid',
        'k1',
        '--obj',
        'DE89370400440532013000',
        '--sub',
        sub,
        '--data-dir',
        dir,
      ]);
      const recovered = await recovery.done;
      expect(recovered.code, recovery.stderr()).toBe(0);
      expect(recovery.stdout()).toMatch(/^Recovered \d+ events/);
      const signed = await sign.done;
      expect(signed.code, sign.stderr()).toBe(0);
      expect(sign.stdout()).toMatch(/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+\n$/);
      // It waited, naming the recovery (the order the two exits are seen in is not asserted).
      expect(sign.stderr()).toContain(`waiting for store recover (pid ${recoverPid}) to finish…`);
      // Its pair is in the live database, and not in the file set aside.
      expect(signedSubs(dir)).toContain(sub);
      const kept = fs.readdirSync(dir).filter((f) => f.startsWith('console.db.damaged-'));
      expect(kept.length).toBeGreaterThan(0);
      for (const f of kept) expect(fs.readFileSync(path.join(dir, f)).includes(sub)).toBe(false);
    } finally {
      for (const p of [recovery, sign]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  }, 300_000);

  it('`store recover` waits for a one-shot writer holding the database, changing nothing until it lets go', async () => {
    const dir = await damagedProfile(2_000);
    // This process plays a `jwt sign` in the middle of its write (the same hold it takes).
    const writer = await holdForOneShotWrite(dir);
    const inode = fs.statSync(path.join(dir, 'console.db')).ino;
    const recovery = spawnCli(['store', 'recover', '--data-dir', dir]);
    try {
      await waitFor("the recovery's wait", () =>
        recovery.stderr().includes('waiting for one-shot commands writing the profile'),
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(recovery.child.exitCode).toBeNull();
      expect(fs.statSync(path.join(dir, 'console.db')).ino).toBe(inode);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('console.db.damaged-'))).toEqual([]);
      writer.release();
      const done = await recovery.done;
      expect(done.code, recovery.stderr()).toBe(0);
      expect(fs.statSync(path.join(dir, 'console.db')).ino).not.toBe(inode);
    } finally {
      writer.release();
      if (recovery.child.exitCode === null) recovery.child.kill('SIGKILL');
    }
  }, 120_000);

  it('one-shot writers share the database; a recovery fences them all, and they name who runs it', async () => {
    const dir = tempDir();
    const a = await holdForOneShotWrite(dir);
    const b = await holdForOneShotWrite(dir);
    let fenced = false;
    const fence = fenceOneShotWriters(dir, { pollMs: 10 }).then((f) => ((fenced = true), f));
    await new Promise((r) => setTimeout(r, 200));
    expect(fenced).toBe(false);
    a.release();
    await new Promise((r) => setTimeout(r, 200));
    expect(fenced).toBe(false);
    b.release();
    b.release();
    const held = await fence;

    // A recovery holds the profile (its claim names it in owner.json): a writer waits, told who.
    const claim = await claimProfile(dir, 'store recover');
    const told: Array<ProfileOwner | null> = [];
    let writing = false;
    const writer = holdForOneShotWrite(dir, { onWait: (r) => told.push(r), pollMs: 10 }).then(
      (w) => ((writing = true), w),
    );
    await waitFor("the writer's wait", () => told.length > 0);
    expect(told).toEqual([expect.objectContaining({ pid: process.pid, role: 'store recover' })]);
    await new Promise((r) => setTimeout(r, 200));
    expect(writing).toBe(false);
    held.release();
    claim.release();
    (await writer).release();
    expect(told).toHaveLength(1);
  });
});
