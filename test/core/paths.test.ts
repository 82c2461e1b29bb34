import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../electron/core/paths';

describe('defaultDataDir (the desktop app userData folder)', () => {
  it('uses $XDG_CONFIG_HOME on Linux', () => {
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/tmp/cfg' }, '/home/ana')).toBe(
      '/tmp/cfg/DETS Console',
    );
  });

  it('falls back to ~/.config on Linux when XDG_CONFIG_HOME is unset or empty', () => {
    expect(defaultDataDir('linux', {}, '/home/ana')).toBe('/home/ana/.config/DETS Console');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '' }, '/home/ana')).toBe(
      '/home/ana/.config/DETS Console',
    );
  });

  it('follows the Linux rule on other Unix systems', () => {
    expect(defaultDataDir('freebsd', {}, '/home/ana')).toBe('/home/ana/.config/DETS Console');
  });

  it('uses ~/Library/Application Support on macOS, ignoring XDG_CONFIG_HOME', () => {
    expect(defaultDataDir('darwin', { XDG_CONFIG_HOME: '/tmp/cfg' }, '/Users/ana')).toBe(
      '/Users/ana/Library/Application Support/DETS Console',
    );
  });

  it('uses %APPDATA% on Windows, with backslashes', () => {
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, 'C:\\Users\\ana')).toBe(
      'C:\\Users\\ana\\AppData\\Roaming\\DETS Console',
    );
  });

  it('falls back to <home>\\AppData\\Roaming on Windows when APPDATA is missing', () => {
    expect(defaultDataDir('win32', {}, 'C:\\Users\\ana')).toBe(
      'C:\\Users\\ana\\AppData\\Roaming\\DETS Console',
    );
  });

  it('defaults to this process platform, environment and home', () => {
    const dir = defaultDataDir();
    expect(path.isAbsolute(dir)).toBe(true);
    expect(path.basename(dir)).toBe('DETS Console');
    if (process.platform === 'linux' && !process.env.XDG_CONFIG_HOME) {
      expect(dir).toBe(path.join(os.homedir(), '.config', 'DETS Console'));
    }
  });
});
