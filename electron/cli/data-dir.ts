/**
 * Whether a path can be the profile folder (DESIGN.md "Command line": every command takes
 * `--data-dir DIR` or DETS_DATA_DIR; bad input gets a clear error naming what is wrong). Without
 * this, a regular file or `/proc/version` as the profile read as an empty profile and the command
 * exited 0, and a folder nothing can be written in failed later with an error naming a file
 * inside it.
 *
 * A command that only reads (`events`, `keys list`, `jwt inspect`) accepts a folder that does
 * not exist yet (an empty profile); one that writes (`serve`, `keys generate`, …) needs to be able
 * to write in the folder, or to create it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What the command does with the profile folder. */
export type DataDirUse = 'read' | 'write';

/**
 * Checks `dir` for `use` without leaving anything behind (a write check creates and removes one
 * empty file, as only an actual write tells: root passes every permission check, yet cannot
 * create a file in `/proc/self`).
 *
 * @returns null when usable, else why not, in words that follow the path's name
 * ("\"/etc/hostname\" is a file, not a folder").
 * @example
 * checkDataDir('/etc/hostname', 'read'); // '"/etc/hostname" is a file, not a folder'
 */
export function checkDataDir(dir: string, use: DataDirUse): string | null {
  const shown = JSON.stringify(dir);
  const abs = path.resolve(dir);
  const st = statOf(abs);
  if (st instanceof fs.Stats) {
    if (!st.isDirectory()) return `${shown} is ${kindOf(st)}, not a folder`;
    if (use === 'read') {
      const denied = errorCode(() => fs.accessSync(abs, fs.constants.R_OK | fs.constants.X_OK));
      return denied ? `cannot read the folder ${shown} (${denied})` : null;
    }
    const failed = errorCode(() => probeWrite(abs));
    return failed ? `cannot write in the folder ${shown} (${failed})` : null;
  }
  if (st !== 'ENOENT' && st !== 'ENOTDIR') return `cannot look at ${shown} (${st})`;
  // It does not exist: what is there instead, on the way to it?
  let parent = path.dirname(abs);
  let parentStat = statOf(parent);
  while (!(parentStat instanceof fs.Stats) && path.dirname(parent) !== parent) {
    parent = path.dirname(parent);
    parentStat = statOf(parent);
  }
  if (!(parentStat instanceof fs.Stats)) return `cannot look at ${shown} (${parentStat})`;
  if (!parentStat.isDirectory()) {
    return `${shown} cannot be a folder: ${JSON.stringify(parent)} is ${kindOf(parentStat)}`;
  }
  if (use === 'read') return null;
  const failed = errorCode(() => probeWrite(parent));
  return failed
    ? `cannot create ${shown}: nothing can be written in ${JSON.stringify(parent)} (${failed})`
    : null;
}

function statOf(file: string): fs.Stats | string {
  try {
    return fs.statSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isFile()) return 'a file';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  return 'not a folder';
}

/** Creates and removes an empty file in `folder`; throws what the system said. */
function probeWrite(folder: string): void {
  const file = path.join(
    folder,
    `.dets-console-write-check-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  fs.closeSync(fs.openSync(file, 'wx', 0o600));
  fs.unlinkSync(file);
}

/** The error code `fn` throws (EACCES, EROFS…), or null when it does not. */
function errorCode(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
  }
}
