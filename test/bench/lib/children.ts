/**
 * Server child processes: each bench target runs in its own process so the load generator never
 * shares its event loop. A child prints one JSON line `{"ready":true,...}` on stdout once it
 * listens (the `dets-console sandbox --json` convention); everything it starts is tracked here and
 * killed, by PID, when the bench ends however it ends (normal exit, error, SIGINT/SIGTERM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { BenchBroken } from './errors';

export interface ReadyLine {
  ready: true;
  [key: string]: unknown;
}

export interface StartOptions {
  /** A short name for messages, e.g. "crypto-floor". */
  id: string;
  /**
   * Pin the child to this CPU (`taskset -c`, which execs the command: the PID stays the
   * child's), so a server's figures are one core's whatever the load generator does.
   */
  cpu?: number;
  /** Defaults to this Node binary. */
  command?: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long to wait for the ready line; default 30 s. */
  readyTimeoutMs?: number;
  /** The base URL in the ready line; default its `url` member. */
  urlOf?: (ready: ReadyLine) => unknown;
}

export interface ChildServer {
  id: string;
  pid: number;
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  ready: ReadyLine;
  /** Whether it is still running. */
  alive(): boolean;
  /** The last few KB of its stderr, for error messages. */
  stderrTail(): string;
  /**
   * The child's CPU time so far, user + system, µs (every thread), as it reports it on a `cpu`
   * line of its stdin (lib/child-runtime.ts); null when it does not answer within 2 s.
   */
  cpuMicros(): Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();

/** SIGKILL every child still running (synchronous: safe in a process 'exit' handler). */
export function killAllSync(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  live.clear();
}

/** How many children are still tracked as running. */
export function liveChildren(): number {
  return [...live].filter((c) => c.exitCode === null && c.signalCode === null).length;
}

const TAIL = 8 * 1024;

/** Spawns a server child and resolves once it has printed its ready line. */
export async function startChild(opts: StartOptions): Promise<ChildServer> {
  const command = opts.command ?? process.execPath;
  const [file, args] =
    opts.cpu === undefined
      ? [command, [...opts.args]]
      : ['taskset', ['-c', String(opts.cpu), command, ...opts.args]];
  const child = spawn(file, args, {
    cwd: opts.cwd,
    // The child stops when this pipe closes, so even a SIGKILLed bench leaves nothing behind.
    env: { ...process.env, ...opts.env, BENCH_PARENT_STDIN: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  // A failed spawn (ENOENT) emits 'error' and no 'exit'.
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-TAIL);
  });
  const stdoutOther: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  const cpuWaiters: Array<(us: number | null) => void> = [];
  lines.on('line', (line) => {
    const us = parseCpu(line);
    if (us !== null) cpuWaiters.shift()?.(us);
  });

  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  const fail = (why: string): Error => {
    killPid(child);
    const tail = stderr.trim() || stdoutOther.join('\n').trim();
    return new BenchBroken(`${opts.id}: ${why}${tail ? `\n--- ${opts.id} output ---\n${tail}` : ''}`);
  };

  try {
    const ready = await Promise.race([
      new Promise<ReadyLine>((resolve) => {
        lines.on('line', (line) => {
          const parsed = parseReady(line);
          if (parsed) resolve(parsed);
          else if (stdoutOther.length < 50) stdoutOther.push(line);
        });
      }),
      exited.then(({ code, signal }) => {
        throw fail(`exited before it was ready (${signal ?? `code ${code}`})`);
      }),
      spawnError.then((err) => {
        throw fail(`could not start: ${err.message}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(fail(`no ready line within ${readyTimeoutMs} ms`)), readyTimeoutMs);
      }),
    ]);
    const url = (opts.urlOf ?? ((r) => r.url))(ready);
    if (typeof url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(url)) {
      throw fail(`ready line has no loopback base URL: ${JSON.stringify(ready)}`);
    }
    return {
      id: opts.id,
      pid: child.pid!,
      url: url.replace(/\/$/, ''),
      ready,
      alive: () => child.exitCode === null && child.signalCode === null,
      stderrTail: () => stderr,
      cpuMicros() {
        if (child.exitCode !== null || child.signalCode !== null || !child.stdin?.writable)
          return Promise.resolve(null);
        return new Promise<number | null>((resolve) => {
          const t = setTimeout(() => {
            const i = cpuWaiters.indexOf(answer);
            if (i >= 0) cpuWaiters.splice(i, 1);
            resolve(null);
          }, 2_000);
          const answer = (us: number | null) => {
            clearTimeout(t);
            resolve(us);
          };
          cpuWaiters.push(answer);
          child.stdin!.write('cpu\n');
        });
      },
      async stop(graceMs = 5_000) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const t = setTimeout(() => killPid(child), graceMs);
          const result = await exited;
          clearTimeout(t);
          return result;
        }
        return exited;
      },
    };
  } finally {
    clearTimeout(timer);
  }
}

function killPid(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** user + system µs of a child's `{"cpu":{"user":…,"system":…}}` line, or null for any other line. */
export function parseCpu(line: string): number | null {
  if (!line.startsWith('{"cpu"')) return null;
  try {
    const { cpu } = JSON.parse(line) as { cpu?: { user?: unknown; system?: unknown } };
    return typeof cpu?.user === 'number' && typeof cpu.system === 'number' ? cpu.user + cpu.system : null;
  } catch {
    return null;
  }
}

/** The ready object of a stdout line, or null when the line is something else. */
export function parseReady(line: string): ReadyLine | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && (value as { ready?: unknown }).ready === true
      ? (value as ReadyLine)
      : null;
  } catch {
    return null;
  }
}

let installed = false;

/**
 * Kills every child on process exit, and turns SIGINT/SIGTERM into a clean stop of the children
 * (graceful first, so profiles get written) followed by exit 130/143.
 */
export function installCleanup(onSignal?: (signal: NodeJS.Signals) => void): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllSync);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      onSignal?.(signal);
      const children = [...live];
      for (const c of children) c.kill('SIGTERM');
      const hard = setTimeout(() => {
        killAllSync();
        process.exit(signal === 'SIGINT' ? 130 : 143);
      }, 2_000);
      void Promise.all(
        children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c, 'exit') : undefined)),
      ).then(() => {
        clearTimeout(hard);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
    });
  }
}
