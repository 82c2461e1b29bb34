import { describe, expect, it, vi } from 'vitest';
import { unpackedPath } from '../../electron/core/common/worker-file';
import { packagedKeychain } from '../../electron/main/native-modules';

vi.mock('electron', () => import('./fake-electron'));

describe('native modules in the packaged app', () => {
  it('points a path inside app.asar at app.asar.unpacked (POSIX and Windows separators)', () => {
    expect(
      unpackedPath('/opt/DETS Console/resources/app.asar/node_modules/@napi-rs/keyring/index.js', '/'),
    ).toBe('/opt/DETS Console/resources/app.asar.unpacked/node_modules/@napi-rs/keyring/index.js');
    expect(
      unpackedPath('C:\\Program Files\\DETS Console\\resources\\app.asar\\node_modules\\x\\index.js', '\\'),
    ).toBe('C:\\Program Files\\DETS Console\\resources\\app.asar.unpacked\\node_modules\\x\\index.js');
  });

  it('leaves a path outside any asar as it is (development)', () => {
    expect(unpackedPath('/work/app/node_modules/@napi-rs/keyring/index.js', '/')).toBe(
      '/work/app/node_modules/@napi-rs/keyring/index.js',
    );
    expect(unpackedPath('/work/app.asar.backup/x.js', '/')).toBe('/work/app.asar.backup/x.js');
  });

  it('gives the keychain worker the unpacked binding: a packed path is "Cannot find module" in a worker', async () => {
    const keychain = packagedKeychain(
      () => '/nowhere/resources/app.asar/node_modules/@napi-rs/keyring/index.js',
    );
    // The worker reports the path it tried, which must be the unpacked one.
    const failure = await keychain.get('dets-console-test', 'native-modules').catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toContain('app.asar.unpacked');
  });
});
