/**
 * The built CLI (dist/cli/dets-console.js, built once per run by test/support/global-setup.ts)
 * in its own process, as scripts and CI run it: output captured, the first stdout line awaited
 * (the ready line of long-running commands), the exit awaited. Every child is recorded in
 * `children` so the test file can kill what is still running after each test; `cliTestFile`
 * sets that up with the file's temp folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
export const CLI = path.join(root, 'dist/cli/dets-console.js');

export interface SpawnedCli {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** The first stdout line, once complete (rejects if the process exits first). */
  firstLine: Promise<string>;
  /** The first stdout line parsed as JSON: the --json ready line. */
  ready: Promise<Record<string, unknown>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForStderr(text: string): Promise<void>;
  /** Sends `signal` (SIGTERM unless told) and resolves to the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  const ready = firstLine.then((line) => JSON.parse(line) as Record<string, unknown>);
  ready.catch(() => undefined);
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
    ready,
    exit,
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exit;
    },
    waitForStderr: (text) =>
      new Promise<void>((resolve) => {
        const check = () => (stderr.includes(text) ? resolve() : stderrWaiters.push(check));
        check();
      }),
  };
}

/**
 * Awaits the exit of a run that must fail: expects exit `code` and nothing on stdout, and
 * resolves to the stderr lines.
 */
export async function failedRun(run: SpawnedCli, code: number): Promise<string[]> {
  expect((await run.exit).code).toBe(code);
  expect(run.stdout).toBe('');
  return run.stderr.trimEnd().split('\n');
}

/**
 * For a test file that spawns the CLI: a temp folder made before its tests and removed after
 * them, and `spawn`, whose children still running after a test are killed (SIGKILL).
 */
export function cliTestFile(tmpPrefix: string): {
  /** The temp folder (set once beforeAll has run). */
  readonly tmp: string;
  /** `<tmp>/NAME/profile`: a data folder that does not exist yet. */
  dataDir(name: string): string;
  spawn(args: string[], env?: NodeJS.ProcessEnv): SpawnedCli;
} {
  let tmp = '';
  const children = new Set<ChildProcess>();
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), tmpPrefix));
  });
  afterEach(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children.clear();
  });
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
  });
  return {
    get tmp() {
      return tmp;
    },
    dataDir: (name) => path.join(tmp, name, 'profile'),
    spawn: (args, env = {}) => spawnCli(args, children, env),
  };
}
