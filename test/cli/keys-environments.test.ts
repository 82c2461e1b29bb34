/**
 * `keys list` with keys in two environments (issue 26 item 1; DESIGN.md "Environments"): each
 * environment's active key is `active` in that environment, whatever the key store's single
 * profile-wide status says after the second environment took its own key, and a key one
 * environment rotated away from is `retired` there only. Real vault (with-keyring), real files.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvironmentStore } from '../../electron/core/service/environments';
import { runCaptured, tempDataDirs } from './support/cli-run';

const temp = tempDataDirs('dets-cli-keys-env-');
afterAll(() => temp.cleanup());

const cli = (argv: string[], dataDir: string) =>
  runCaptured(argv, dataDir, {
    readStdin: async () => {
      throw new Error('this test gives no stdin');
    },
    promptSecret: async () => {
      throw new Error('this test expects no prompt');
    },
  });

describe('keys list per environment', () => {
  it('names each environment’s status; a key no environment uses keeps its own', async () => {
    const dataDir = temp.newDir();
    for (const kid of ['sandbox-key', 'staging-old', 'staging-new', 'spare']) {
      const r = await cli(['keys', 'generate', '--kid', kid, '--json'], dataDir);
      expect(r.code).toBe(0);
    }
    // What two walkthroughs and a rotation leave: the key store's profile-wide status moved
    // with the last one (staging-new active, the others retired or next).
    const envs = createEnvironmentStore({ dataDir, sandboxUrl: () => null });
    await envs.save({ id: 'sandbox', active_kid: 'sandbox-key' });
    const staging = await envs.save({ name: 'Staging', base_url: 'https://dets.staging.example' });
    await envs.save({ id: staging.id, active_kid: 'staging-old' });
    await envs.save({ id: staging.id, active_kid: 'staging-new' });

    const r = await cli(['keys', 'list', '--json'], dataDir);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      { kid: 'sandbox-key', alg: 'RS256', status: 'active', expires: null, environment: 'sandbox' },
      { kid: 'staging-old', alg: 'RS256', status: 'retired', expires: null, environment: staging.id },
      { kid: 'staging-new', alg: 'RS256', status: 'active', expires: null, environment: staging.id },
      { kid: 'spare', alg: 'RS256', status: 'next', expires: null, environment: null },
    ]);

    const text = (await cli(['keys', 'list'], dataDir)).stdout;
    expect(text).toMatch(/^sandbox-key\s+RS256\s+2048\s+active \(Sandbox\)\s/m);
    expect(text).toMatch(/^staging-old\s+RS256\s+2048\s+retired \(Staging\)\s/m);
  });
});
