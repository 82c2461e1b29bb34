/**
 * `dets-console events --environment ID|NAME` (issue 26 item 1 on the command line): the
 * callbacks of one environment of the profile, named by id or by name in any case, combined with
 * the other filters; a name the profile does not have exits 2 listing those it has.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/event-hub';
import { openEventStore } from '../../electron/core/store';
import { callback, notification } from '../core/store/helpers';
import { jsonLines, runInProcess } from './helpers';

const tmp = mkdtempSync(join(tmpdir(), 'dets-cli-env-'));
const profile = join(tmp, 'profile');

beforeAll(async () => {
  const store = await openEventStore({ dataDir: profile, events: new EventHub() });
  const env = (id: string | null, name: string) => ({ environment: { id, name } });
  await store.append(callback({ ...env('sandbox', 'Sandbox'), obj: 'sb-1' }));
  await store.append(callback({ ...env('env-stg', 'Bank staging'), obj: 'stg-1' }));
  await store.append(callback({ ...env('env-stg', 'Bank staging'), obj: 'stg-2', failed_check: 'exp' }));
  await store.append(callback({ ...env('env-prd', 'Bank prod'), obj: 'prd-1' }));
  await store.append(notification({ ...env('env-stg', 'Bank staging'), transaction_id: 'tx-1' }));
  await store.close();
  // As the desktop app writes it (older fields left to their defaults).
  writeFileSync(
    join(profile, 'environments.json'),
    JSON.stringify({
      version: 1,
      environments: [
        { id: 'env-stg', name: 'Bank staging', base_url: 'https://dets.staging.example' },
        { id: 'env-prd', name: 'Bank prod', base_url: 'https://dets.example' },
      ],
    }),
  );
}, 60_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true, maxRetries: 5 }));

const events = (...args: string[]) => runInProcess(['events', '--data-dir', profile, ...args]);
const objs = async (...args: string[]) => {
  const r = await events('--json', ...args);
  expect(r.code, r.stderr).toBe(0);
  return jsonLines(r.stdout).map((e) => e.obj);
};

describe('events --environment', () => {
  it('lists the callbacks of the environment named by id or by name in any case, oldest first', async () => {
    expect(await objs('--environment', 'env-stg')).toEqual(['stg-1', 'stg-2']);
    expect(await objs('--environment', 'bank STAGING')).toEqual(['stg-1', 'stg-2']);
    expect(await objs('--environment', 'sandbox')).toEqual(['sb-1']);
    expect(await objs('--environment', 'Bank prod', '--limit', '5')).toEqual(['prd-1']);
  });

  it('combines with the other filters, and an empty listing names them', async () => {
    expect(await objs('--environment', 'env-stg', '--search', 'stg-2')).toEqual(['stg-2']);
    const r = await events('--environment', 'Bank prod', '--kind', 'notification');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('No events match --kind notification --environment "Bank prod".\n');
  });

  it('refuses a name the profile does not have, listing the ones it has (exit 2)', async () => {
    const r = await events('--environment', 'qa');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--environment: "qa" names no environment of this profile');
    expect(r.stderr).toContain('"Bank staging" (env-stg)');
    expect(r.stderr).toContain('"Sandbox" (sandbox)');
    const empty = await events('--environment', '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--environment');
  });
});
