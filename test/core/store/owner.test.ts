import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimProfile, otherOwners } from '../../../electron/core/store/owner';
import { runBuiltCli, spawnServe, type ServeChild } from '../../cli/helpers';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const SERVE = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];

async function startServe(dir: string): Promise<ServeChild> {
  const s = spawnServe([...SERVE, '--data-dir', dir]);
  await s.ready;
  return s;
}

describe('profile owners: `store recover` never replaces a database another process has open', () => {
  it('refuses while a serve has the profile open, naming its pid; works once it has stopped', async () => {
    const dir = tempDir();
    const serve = await startServe(dir);
    try {
      const pid = serve.child.pid!;
      expect(otherOwners(dir).map((o) => o.pid)).toEqual([pid]);
      const before = fs.readdirSync(dir).sort();

      const refused = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`pid ${pid}`);
      expect(refused.stderr).toMatch(/stop it first/);
      expect(refused.stderr).toMatch(/Nothing was changed/);
      // Nothing set aside, nothing created.
      expect(fs.readdirSync(dir).sort()).toEqual(before);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    // A clean stop removes its record; recovery may now run.
    expect(otherOwners(dir)).toEqual([]);
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    // It ran (the profile is sound, so it changed nothing).
    expect(r.stdout).toMatch(/is sound: .*Nothing was changed/);
  });

  it('a serve killed with -9 leaves a record that does not block recovery', async () => {
    const dir = tempDir();
    const serve = await startServe(dir);
    const pid = serve.child.pid!;
    serve.kill();
    await serve.exit;
    expect(fs.existsSync(path.join(dir, 'owners', `${pid}.json`))).toBe(true);
    expect(otherOwners(dir)).toEqual([]);
    // The stale record is cleaned up by the reader.
    expect(fs.existsSync(path.join(dir, 'owners', `${pid}.json`))).toBe(false);
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('records one file per process, and a release removes only its own', () => {
    const dir = tempDir();
    const release = claimProfile(dir, 'cli');
    // This process's own claim is not "another owner".
    expect(otherOwners(dir)).toEqual([]);
    const mine = path.join(dir, 'owners', `${process.pid}.json`);
    expect(JSON.parse(fs.readFileSync(mine, 'utf8'))).toMatchObject({ pid: process.pid, host: 'cli' });
    // Another live process's record (pid 1, always alive) stays and is reported.
    fs.writeFileSync(path.join(dir, 'owners', '1.json'), '{"pid":1,"host":"desktop","since":"x"}');
    expect(otherOwners(dir)).toEqual([{ pid: 1, host: 'desktop', since: 'x' }]);
    release();
    release();
    expect(fs.existsSync(mine)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'owners', '1.json'))).toBe(true);
  });
});
