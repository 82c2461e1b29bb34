/**
 * The built CLI (dist/cli/dets-console.js, built once per run by test/support/global-setup.ts)
 * in its own process, as scripts and CI run it: output captured, the first stdout line awaited
 * (the ready line of long-running commands), the exit awaited. Every child is recorded in
 * `children` so the test file can kill what is still running after each test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
export const CLI = path.join(root, 'dist/cli/dets-console.js');

export interface SpawnedCli {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** The first stdout line, once complete (rejects if the process exits first). */
  firstLine: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForStderr(text: string): Promise<void>;
}

/** Starts `dets-console ARGS` with DETS_DATA_DIR unset unless `env` sets it. */
export function spawnCli(
  args: string[],
  children: Set<ChildProcess>,
  env: NodeJS.ProcessEnv = {},
): SpawnedCli {
  const baseEnv = { ...process.env };
  delete baseEnv.DETS_DATA_DIR;
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: root,
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const stderrWaiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const nl = stdout.indexOf('\n');
      if (nl >= 0) resolve(stdout.slice(0, nl));
    });
    child.on('exit', () => reject(new Error(`exited before a stdout line; stderr: ${stderr}`)));
  });
  firstLine.catch(() => undefined);
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    stderrWaiters.splice(0).forEach((w) => w());
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    firstLine,
    exit,
    waitForStderr: (text) =>
      new Promise<void>((resolve) => {
        const check = () => (stderr.includes(text) ? resolve() : stderrWaiters.push(check));
        check();
      }),
  };
}
