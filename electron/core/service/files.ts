/**
 * Small file helpers for the service domain's state (`environments.json`, the exchange
 * history): atomic replacement (temp file in the same directory, fsync, rename; 0600) and a
 * promise queue so writes from one process never interleave.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';

/**
 * Replaces `file` with `text` atomically: a reader sees the old content or the new, never half
 * of either. The file is created 0600 (it names environments and carries tokens), its folder
 * 0700 when this creates it.
 *
 * @example
 * await writeFileAtomic('/data/environments.json', JSON.stringify(state));
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: fs.FileHandle | undefined;
  try {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    handle = await fs.open(temp, 'wx', 0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, file);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw new ConsoleError(
      'INTERNAL',
      `could not write ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  try {
    const dirHandle = await fs.open(dir, 'r');
    await dirHandle.sync().finally(() => dirHandle.close());
  } catch {
    // best effort: not every platform can fsync a directory
  }
}

/** Reads a file as UTF-8; null when it does not exist. Other failures are thrown as they are. */
export async function readFileOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Runs tasks one after another, in call order; a failed task does not stop the next. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
