/**
 * Where the sandbox's state lives: `<dataDir>/sandbox/state.json` (dir 0700, file 0600).
 *
 * Threat model and failure model: the file is the only copy of the counterparties the engineer
 * onboarded and of the sandbox's (sealed) signing key, so it is never half-written and never
 * thrown away. Writes go to a temp file in the same directory, are fsynced, then renamed over
 * the old file (atomic on POSIX and NTFS), one at a time. A file that cannot be read, parsed
 * or validated is reported as STATE_DAMAGED and left byte for byte as it was: nothing here
 * writes until a load has succeeded.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';
import { StateFile } from './state-schema';

export const STATE_FILE_NAME = 'state.json';

function damaged(file: string, problem: string): ConsoleError {
  return new ConsoleError(
    'STATE_DAMAGED',
    `the sandbox state file ${file} ${problem}. It was left untouched: repair it, or move it away to start ` +
      `the sandbox with an empty state`,
    { file },
  );
}

/** Reads and validates the state file; null when there is none yet. */
async function readState(file: string): Promise<StateFile | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw damaged(file, `could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw damaged(file, `is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = StateFile.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => {
      const where = i.path.map(String).join('.');
      return where ? `${where}: ${i.message}` : i.message;
    });
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : '';
    throw damaged(file, `does not have the expected shape (${issues.join('; ')}${more})`);
  }
  return parsed.data;
}

export class StateStore {
  readonly file: string;
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  private constructor(
    readonly dir: string,
    private readonly snapshot: () => StateFile,
  ) {
    this.file = path.join(dir, STATE_FILE_NAME);
  }

  /**
   * Opens `<dataDir>/sandbox/`, creating it (0700) when missing, and loads the state file.
   * Rejects with STATE_DAMAGED when the file is there but unusable. `snapshot` is what each
   * later write serializes: the state as it is when that write starts.
   */
  static async open(
    dataDir: string,
    snapshot: () => StateFile,
  ): Promise<{ store: StateStore; state: StateFile | null }> {
    const dir = path.join(dataDir, 'sandbox');
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const store = new StateStore(dir, snapshot);
    const state = await readState(store.file);
    return { store, state };
  }

  /**
   * Schedules a write of the current state and resolves once a write that started after this
   * call has reached the disk. Writes never overlap; calls made while one is queued share it.
   */
  save(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.tail.then(() => {
      this.queued = null;
      return this.writeNow();
    });
    this.queued = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Waits for every scheduled write. */
  async flush(): Promise<void> {
    await this.tail;
  }

  private async writeNow(): Promise<void> {
    const text = `${JSON.stringify(this.snapshot(), null, 2)}\n`;
    const temp = path.join(
      this.dir,
      `.${STATE_FILE_NAME}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
    );
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(temp, 'wx', 0o600);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
      await handle.close();
      handle = undefined;
      await fs.rename(temp, this.file);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw new ConsoleError(
        'INTERNAL',
        `could not write the sandbox state to ${this.file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    // The rename is durable once the directory entry is; not every platform can fsync a directory.
    try {
      const dirHandle = await fs.open(this.dir, 'r');
      await dirHandle.sync().finally(() => dirHandle.close());
    } catch {
      // best effort (Windows cannot open a directory)
    }
  }
}
