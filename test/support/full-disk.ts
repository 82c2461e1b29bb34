/**
 * A full disk, for real (the fault tests of the stores): a small tmpfs mounted by the test
 * (root is available in CI) and filled with one file to the last byte it takes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A tmpfs of `size` (e.g. `2m`) on a fresh folder; unmount it with {@link unmountTmpfs}. */
export function mountTmpfs(size: string, prefix: string): string {
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', mountPoint]);
  return mountPoint;
}

/**
 * Unmounts and removes it. Lazily: a database may still hold a closed connection's files until
 * the garbage collector frees them; the kernel finishes when they are released.
 */
export function unmountTmpfs(mountPoint: string): void {
  execFileSync('umount', ['-l', mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true, maxRetries: 5 });
}

/** Fills the file system with one file, to the last byte it takes (bounded: 256 MiB). */
export function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let i = 0; i < 4096; i++) fs.writeSync(fd, chunk);
  } catch {
    // ENOSPC: then the smallest pieces, to the last byte
    for (let j = 0; j < 8192; j++) {
      try {
        fs.writeSync(fd, chunk, 0, 512);
      } catch {
        return;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
