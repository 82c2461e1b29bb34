/**
 * Shared by the CLI tests that use the real vault: temp data folders whose keychain items are
 * deleted afterwards, and one CLI invocation through runCli with a captured CliIo.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../../electron/cli/io';
import { runCli } from '../../../electron/cli/run';
import {
  createOsKeychain,
  KEYCHAIN_SERVICE,
  vaultFilePath,
  vaultKeyAccount,
} from '../../../electron/core/vault';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Temp data folders for one test file. `cleanup()` (in afterAll) deletes each folder and the
 * keychain item of its vault, so the test keyring does not fill up.
 */
export function tempDataDirs(prefix: string): {
  newDir(prefixOverride?: string): string;
  cleanup(): Promise<void>;
} {
  const dirs: string[] = [];
  return {
    newDir(prefixOverride) {
      const dir = mkdtempSync(join(tmpdir(), prefixOverride ?? prefix));
      dirs.push(dir);
      return dir;
    },
    async cleanup() {
      const keychain = createOsKeychain();
      for (const dir of dirs.splice(0)) {
        try {
          const vault = JSON.parse(readFileSync(vaultFilePath(dir), 'utf8')) as {
            kind: string;
            profile_id: string;
          };
          if (vault.kind === 'keychain')
            await keychain.delete(KEYCHAIN_SERVICE, vaultKeyAccount(vault.profile_id));
        } catch {
          // no vault in this folder
        }
        rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      }
    },
  };
}

/**
 * One `dets-console …` invocation in this process, its output captured; no stdin, no terminal.
 * `extra` may carry a command's own io fields (JwtIo's stdoutIsTTY).
 */
export async function runCaptured<I extends CliIo = CliIo>(
  argv: string[],
  dataDir: string,
  extra: Partial<I> = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { DETS_DATA_DIR: dataDir },
    waitForStop: () => new Promise(() => {}),
    stdinIsTTY: false,
    ...extra,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
