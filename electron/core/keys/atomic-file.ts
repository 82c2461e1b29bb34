/**
 * Whole-file writes that never leave a half-written file behind: the text goes to a temp file
 * in the same directory (0600), is fsynced, then renamed over the target (atomic on POSIX and
 * NTFS), and the directory is fsynced where the platform allows it. A reader sees the old file
 * or the new one, never a mix.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Creates `dir` (0700) when missing and tightens it to 0700 when it exists with looser bits
 * (best effort: Windows has no POSIX modes).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') await fs.chmod(dir, 0o700).catch(() => undefined);
}

/**
 * Writes `text` to `file` atomically, mode 0600.
 *
 * @example
 * await writeFileAtomic('/profile/keys/keys.json', JSON.stringify(doc));
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', 0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, file);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  // The rename is durable once the directory entry is; not every platform can fsync a directory.
  try {
    const dirHandle = await fs.open(dir, 'r');
    await dirHandle.sync().finally(() => dirHandle.close());
  } catch {
    // best effort (Windows cannot open a directory)
  }
}

/**
 * Runs tasks one at a time, in call order (a failed task does not stop the next).
 *
 * @example
 * const serial = serializer();
 * await serial(() => readModifyWrite());
 */
export function serializer(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}
