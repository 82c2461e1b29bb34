/**
 * Which public URL is in force (public-url.ts), first found wins, and the saved file's damage
 * named, never guessed: the rule was reachable only through the tunnel service's closure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TunnelInfo } from '../../../electron/contract/schemas/tunnel';
import { publicUrlInForce, SavedPublicUrl } from '../../../electron/core/tunnel/public-url';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function saved(): Promise<SavedPublicUrl> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dets-public-url-'));
  dirs.push(dir);
  return new SavedPublicUrl(dir);
}

describe('publicUrlInForce', () => {
  it('takes the flag, then an up tunnel, then the environment, then the profile', async () => {
    const file = await saved();
    await file.write('https://profile.example');
    const up = { state: 'up', url: 'https://t.example' } as TunnelInfo;
    const down = { state: 'down', url: 'https://t.example' } as TunnelInfo;
    const env = async () => 'https://env.example';
    expect(
      await publicUrlInForce({ flag: 'https://flag.example', environment: env, saved: file }, up),
    ).toEqual({
      url: 'https://flag.example',
      source: 'flag',
    });
    expect(await publicUrlInForce({ flag: null, environment: env, saved: file }, up)).toMatchObject({
      source: 'tunnel',
    });
    expect(await publicUrlInForce({ flag: null, environment: env, saved: file }, down)).toMatchObject({
      source: 'environment',
    });
    const failing = async () => {
      throw new Error('no active environment');
    };
    expect(await publicUrlInForce({ flag: null, environment: failing, saved: file }, down)).toEqual({
      url: 'https://profile.example',
      source: 'profile',
    });
    await file.write(null);
    expect(
      await publicUrlInForce({ flag: undefined, environment: undefined, saved: file }, undefined),
    ).toEqual({
      url: null,
      source: null,
    });
  });

  it('a damaged saved file is STATE_DAMAGED for status, and skipped when choosing the URL', async () => {
    const file = await saved();
    await writeFile(file.file, '{"public_url": "ftp://nope"}');
    await expect(file.read()).rejects.toMatchObject({ code: 'STATE_DAMAGED' });
    expect(await publicUrlInForce({ flag: null, environment: undefined, saved: file }, undefined)).toEqual({
      url: null,
      source: null,
    });
  });
});
