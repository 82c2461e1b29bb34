/**
 * The built CLI in its own process, for tests that drive `serve` and `events` as scripts and CI
 * do. dist/ is built once per run by test/support/global-setup.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import type { CliIo } from '../../electron/cli/io';
import { runCli } from '../../electron/cli/run';

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

/**
 * Runs one short command of the built CLI to its end (killed after `timeoutMs`), with `env` over
 * this process's (DETS_DATA_DIR unset unless `env` sets it) and `input` on stdin (none unless
 * given).
 */
export function runBuiltCli(
  args: string[],
  {
    env = {},
    input,
    timeoutMs = 60_000,
  }: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.on('error', () => undefined).end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
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
  /** Sends `signal` (SIGTERM unless told) and resolves to the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `dets-console serve ARGS` and parses its first stdout line as the ready line. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): ServeChild {
  return spawnLongRunning('serve', args, env);
}

/** Starts `dets-console COMMAND ARGS` (serve, sandbox) and parses its first stdout line as the ready line. */
export function spawnLongRunning(
  command: 'serve' | 'sandbox',
  args: string[],
  env: NodeJS.ProcessEnv = {},
): ServeChild {
  const child = spawn(process.execPath, [CLI, command, ...args], {
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
        reject(new Error(`${command} exited (${code}) before its ready line; stderr:\n${stderr}`)),
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
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exit;
    },
  };
}

/** A CliIo that drops all output and never stops, for the parse*Flags functions. */
export const quietIo: CliIo = {
  stdout: () => undefined,
  stderr: () => undefined,
  env: {},
  waitForStop: () => new Promise(() => undefined),
};

/**
 * Runs `dets-console ARGS` in this process (runCli with a captured CliIo: no stdin, never
 * stopped), for the checks that need no process of their own.
 */
export async function runInProcess(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    ...quietIo,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

/** Parses `events --json` output: one object per line. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Runs the built `dets-console events --data-dir DIR --json ARGS`, expects exit 0, and resolves
 * to the listed events.
 */
export async function listEvents(
  dataDir: string,
  ...args: string[]
): Promise<Array<Record<string, unknown>>> {
  const r = await runBuiltCli(['events', '--data-dir', dataDir, ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return jsonLines(r.stdout);
}

/** POSTs `body` as JSON to the bank listener's /api/svc/notify/ROUTE. */
export function notify(bankUrl: unknown, route: string, body: string): Promise<Response> {
  return fetch(`${String(bankUrl)}/api/svc/notify/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
}

/** The session token in a serve's UI URL. */
export const uiToken = (uiUrl: unknown): string => new URL(String(uiUrl)).searchParams.get('token')!;

/** Calls ConsoleApi on a serve's UI listener with the token from its URL. */
export async function callApi(uiUrl: string, method: string, input?: unknown): Promise<unknown> {
  const url = new URL(uiUrl);
  const token = uiToken(uiUrl);
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
