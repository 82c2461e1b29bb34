/**
 * The built CLI in its own process, for tests that drive `serve` and `events` as scripts and CI
 * do. dist/ is built once per run by test/support/global-setup.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'dist/cli/dets-console.js');

function cleanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.DETS_DATA_DIR;
  return { ...base, ...env };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one short command of the built CLI to its end (killed after `timeoutMs`). */
export function runBuiltCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface ServeChild {
  child: ChildProcess;
  ready: Promise<{ ready: true; ui: string; bank?: string; sandbox?: string }>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** SIGKILL unless it has exited already. */
  kill(): void;
}

/** Starts `dets-console serve ARGS` and parses its first stdout line as the ready line. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): ServeChild {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<{ ready: true; ui: string; bank?: string; sandbox?: string }>(
    (resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        const nl = stdout.indexOf('\n');
        if (nl < 0) return;
        try {
          resolve(JSON.parse(stdout.slice(0, nl)) as { ready: true; ui: string });
        } catch (err) {
          reject(err as Error);
        }
      });
      void exit.then(({ code }) =>
        reject(new Error(`serve exited (${code}) before its ready line; stderr:\n${stderr}`)),
      );
    },
  );
  ready.catch(() => undefined);
  return {
    child,
    ready,
    exit,
    stderr: () => stderr,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Parses `events --json` output: one object per line. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Calls ConsoleApi on a serve's UI listener with the token from its URL. */
export async function callApi(uiUrl: string, method: string, input?: unknown): Promise<unknown> {
  const url = new URL(uiUrl);
  const token = url.searchParams.get('token')!;
  const res = await fetch(`${url.origin}/api/call/${method}`, {
    method: 'POST',
    headers: { 'X-DETS-Token': token, 'content-type': 'application/json' },
    body: input === undefined ? '' : JSON.stringify(input),
  });
  const envelope = (await res.json()) as {
    ok: boolean;
    value?: unknown;
    error?: { code: string; message: string };
  };
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error?.code}: ${envelope.error?.message}`);
  return envelope.value;
}
