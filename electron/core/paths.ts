/**
 * Where a profile lives. The CLI, `serve` and the desktop app share one profile (DESIGN.md,
 * "Command line": every command's default data directory is the desktop app's own), so this
 * computes exactly what Electron's `app.getPath('userData')` answers for productName
 * "DETS Console", without importing Electron.
 */
import os from 'node:os';
import path from 'node:path';
import { APP_NAME } from './version';

/**
 * The desktop app's userData folder for this platform:
 * Linux (and other Unix) `$XDG_CONFIG_HOME/DETS Console`, else `~/.config/DETS Console`;
 * macOS `~/Library/Application Support/DETS Console`; Windows `%APPDATA%\DETS Console`.
 *
 * Like Chromium's `GetXDGDirectory`, a set, non-empty `XDG_CONFIG_HOME` is taken as is; a
 * missing `APPDATA` falls back to `<home>\AppData\Roaming`, Windows' default for it.
 *
 * @example
 * defaultDataDir('linux', { XDG_CONFIG_HOME: '/tmp/cfg' }, '/home/ana'); // '/tmp/cfg/DETS Console'
 * defaultDataDir('darwin', {}, '/Users/ana'); // '/Users/ana/Library/Application Support/DETS Console'
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): string {
  if (platform === 'win32') {
    const appData = env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, APP_NAME);
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', APP_NAME);
  const config = env.XDG_CONFIG_HOME || path.posix.join(home, '.config');
  return path.posix.join(config, APP_NAME);
}
