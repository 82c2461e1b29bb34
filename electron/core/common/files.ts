/**
 * Whole-file writes that never leave a half-written file behind, written once for every domain
 * (keys, customers, bank settings, environments, the public URL, the vault). The text goes to a
 * temp file in the same directory (0600), is fsynced, then renamed over the target (atomic on
 * POSIX and NTFS), or linked into place when the file must not exist yet; the directory is
 * fsynced where the platform allows it. A reader sees the old file or the new one, never a mix.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Creates `dir` (0700) when missing and tightens it to 0700 when it exists with looser bits
 * (best effort: Windows has no POSIX modes).
 *
 * @example
 * await ensurePrivateDir('/profile/keys');
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') await fs.chmod(dir, 0o700).catch(() => undefined);
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Creates the file's folder (0700) when it is missing; otherwise a missing folder fails. */
  makeDir?: boolean;
}

/** A new temp file beside `file` (0600, exclusive), holding `text`, synced; its path. */
async function writeTemp(file: string, text: string): Promise<string> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', 0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    return temp;
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Makes a rename or link durable: the directory entry is, once the directory is synced. */
async function syncDir(dir: string): Promise<void> {
  try {
    const dirHandle = await fs.open(dir, 'r');
    await dirHandle.sync().finally(() => dirHandle.close());
  } catch {
    // best effort: Windows cannot open a directory, and some file systems refuse to sync one
  }
}

/**
 * Writes `text` to `file` atomically, mode 0600.
 *
 * @example
 * await writeFileAtomic('/profile/keys/keys.json', JSON.stringify(doc));
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  if (options.makeDir) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = await writeTemp(file, text);
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDir(dir);
}

/** Link errors of a file system without hard links (the fallback copies instead). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Writes `file` (0600) only when it does not exist yet: true when this call created it, false
 * when another writer got there first (nothing of ours is left behind; the caller reads and
 * adopts theirs).
 *
 * @example
 * if (!(await createFileExclusive('/profile/vault/vault.json', text))) adoptTheirs();
 */
export async function createFileExclusive(file: string, text: string): Promise<boolean> {
  const temp = await writeTemp(file, text);
  try {
    // link() fails with EEXIST rather than replace: an atomic "create if absent".
    await fs.link(temp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw err;
    // A file system without hard links: still exclusive, no longer atomic against a crash.
    try {
      await fs.copyFile(temp, file, constants.COPYFILE_EXCL);
    } catch (copyErr) {
      if ((copyErr as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw copyErr;
    }
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
  await syncDir(path.dirname(file));
  return true;
}

/**
 * Reads a file as UTF-8; null when it does not exist. Other failures are thrown as they are.
 *
 * @example
 * const text = await readFileOrNull('/profile/environments.json'); // null on a new profile
 */
export async function readFileOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** How {@link readJsonFileOrNull} fails: each caller's own error code and words, naming the file. */
export interface JsonFileFaults {
  /** The file exists but cannot be read (permissions, a directory, I/O). */
  unreadable(err: NodeJS.ErrnoException): Error;
  /** The file is read but is not JSON. */
  notJson(err: unknown): Error;
}

/**
 * Reads a JSON file the console owns: null when it does not exist, `{ value }` when it parses
 * (the caller checks the shape), else the caller's error; the file is never changed.
 *
 * @example
 * const read = await readJsonFileOrNull(file, { unreadable: () => damaged(), notJson: () => damaged() });
 */
export async function readJsonFileOrNull(
  file: string,
  faults: JsonFileFaults,
): Promise<{ value: unknown } | null> {
  let text: string | null;
  try {
    text = await readFileOrNull(file);
  } catch (err) {
    throw faults.unreadable(err as NodeJS.ErrnoException);
  }
  if (text === null) return null;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    throw faults.notJson(err);
  }
}
