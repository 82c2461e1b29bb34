/**
 * One run of a tunnel client: start it, read its output until it names the public URL (or
 * fails, or the ready time passes), then keep watching it until it exits.
 *
 * Threat model: the client is a program the user chose; it runs with the console's rights and
 * environment, with no shell between (arguments are passed as a list), stdin closed so it can
 * never prompt, and is stopped by its PID with the console (SIGTERM, then SIGKILL after a grace):
 * {@link stopAllClients} also runs on process exit, so no ssh is left holding a remote port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { SshFailure } from '../../contract/schemas/tunnel';
import { ngrokApiUrl, redact, type ClientPlan } from './clients';

/** How long a client may take to name its public URL (DESIGN.md: the ready line waits up to 30 s). */
export const READY_TIMEOUT_MS = 30_000;
/** SIGTERM, then SIGKILL after this. */
export const STOP_GRACE_MS = 3_000;

/** A tunnel that could not be made, with one line naming the client and what it said. */
export class TunnelError extends Error {
  /** ssh only: what its words meant, with what to do (issue 26 item 4). */
  readonly failure: SshFailure | null;

  constructor(message: string, failure: SshFailure | null = null) {
    super(message);
    this.name = 'TunnelError';
    this.failure = failure;
  }
}

/** How many of a client's last lines are kept for {@link ClientPlan.diagnose}. */
const KEPT_LINES = 40;

export interface RunningClient {
  pid: number;
  url: string;
  /** Resolves, once the client exits, with one line saying why (what it said last). */
  readonly exited: Promise<string>;
  /** Once it exited: what its words meant (ssh), null for the other clients. */
  failure(): SshFailure | null;
  stop(): Promise<void>;
}

/** Every client process alive, so that a dying console still stops them. */
const live = new Set<ChildProcess>();
let exitHook = false;

/** Stops every client synchronously (SIGTERM); for process exit. */
export function stopAllClients(): void {
  for (const child of live) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Starts `plan` and resolves once it names a public URL.
 *
 * @example
 * const client = await startClient(planFor(spec, origin, process.env));
 * console.log(client.url); // https://rare-words-here.trycloudflare.com
 * await client.stop();
 */
export function startClient(
  plan: ClientPlan,
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number; signal?: AbortSignal } = {},
): Promise<RunningClient> {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', stopAllClients);
  }
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const child = spawn(plan.command, plan.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    windowsHide: true,
  });
  live.add(child);

  let lastFailure: string | null = null;
  let lastSaid: string | null = null;
  /** The client's last lines, each cut to one short line, for plan.diagnose. */
  const said: string[] = [];
  const diagnose = (): SshFailure | null =>
    plan.diagnose?.(said, (spawnError as NodeJS.ErrnoException | null)?.code === 'ENOENT') ?? null;
  /** One line: the client's name, what it meant and what to do; else what it said last. */
  const reason = (fallback: string): string => {
    const f = diagnose();
    return f && f.code !== 'ssh_failed' ? `${plan.name}: ${f.message}; ${f.action}` : fallback;
  };
  let spawnError: NodeJS.ErrnoException | null = null;
  let url: string | null = null;
  let settle: ((result: { url: string } | { error: string }) => void) | null = null;
  const first = new Promise<{ url: string } | { error: string }>((resolve) => (settle = resolve));
  const done = (result: { url: string } | { error: string }) => {
    const s = settle;
    settle = null;
    s?.(result);
  };

  const exited = new Promise<string>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      spawnError = err;
      live.delete(child);
      resolve(reason(spawnMessage(plan, err)));
    });
    // 'close', not 'exit': by then every line the client wrote has been read.
    child.once('close', (code, signal) => {
      live.delete(child);
      const last = lastFailure ?? lastSaid;
      const how = signal ? `stopped by ${signal}` : `exited with status ${code ?? '?'}`;
      resolve(reason(`${plan.name}: ${last ?? how}`));
    });
  });
  void exited.then((reason) => done({ error: reason }));

  let apiPoll: NodeJS.Timeout | null = null;
  const onLine = (stream: 'stdout' | 'stderr') => (line: string) => {
    if (plan.diagnose) {
      said.push(line.slice(0, 300));
      if (said.length > KEPT_LINES) said.shift();
    }
    const verdict = plan.read(line, stream);
    if (!verdict) return;
    if (verdict.kind === 'url') {
      url ??= verdict.url;
      done({ url: verdict.url });
    } else if (verdict.kind === 'api') {
      apiPoll ??= pollNgrokApi(verdict.addr, (found) => done({ url: found }));
    } else {
      const text = redact(verdict.text).slice(0, 300);
      if (verdict.failure) lastFailure = text;
      else lastSaid = text;
    }
  };
  if (child.stdout) readline.createInterface({ input: child.stdout }).on('line', onLine('stdout'));
  if (child.stderr) readline.createInterface({ input: child.stderr }).on('line', onLine('stderr'));

  const stop = async (): Promise<void> => {
    if (apiPoll) clearInterval(apiPoll);
    if (spawnError || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const pid = child.pid;
    const kill = setTimeout(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }, STOP_GRACE_MS);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
    await exited;
    clearTimeout(kill);
  };

  const timer = setTimeout(() => {
    const said = lastFailure ?? lastSaid;
    done({
      error:
        `${plan.name}: no public URL within ${Math.round(readyTimeoutMs / 1000)} s` +
        `${said ? ` (it last said: ${said})` : ''}${plan.slowHint ? `; ${plan.slowHint}` : ''}`,
    });
  }, readyTimeoutMs);

  // Stopping the console while a client is still starting stops that client too.
  const onAbort = () => done({ error: `${plan.name}: stopped before it was ready` });
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  return first.then(async (result) => {
    options.signal?.removeEventListener('abort', onAbort);
    clearTimeout(timer);
    if (apiPoll) clearInterval(apiPoll);
    if ('error' in result) {
      await stop();
      // Read after the exit: every line ssh wrote has been read by then.
      const exitedAlready = child.exitCode !== null || child.signalCode !== null || spawnError !== null;
      throw new TunnelError(result.error, exitedAlready ? diagnose() : null);
    }
    return {
      pid: child.pid as number,
      url: result.url,
      exited,
      stop,
      failure: () => (child.exitCode !== null || child.signalCode !== null ? diagnose() : null),
    };
  });
}

function spawnMessage(plan: ClientPlan, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `${plan.name}: not found (${plan.notFoundHint})`;
  if (err.code === 'EACCES') return `${plan.name}: not executable (${plan.command})`;
  return `${plan.name}: could not be started (${err.message})`;
}

/** Reads ngrok's local API every 250 ms until it lists a public URL. */
function pollNgrokApi(addr: string, found: (url: string) => void): NodeJS.Timeout {
  const base = /^https?:\/\//.test(addr) ? addr : `http://${addr}`;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    fetch(`${base}/api/tunnels`, { signal: AbortSignal.timeout(2_000) })
      .then((r) => (r.ok ? r.json() : null))
      .then((body: unknown) => {
        const url = ngrokApiUrl(body);
        if (url) {
          clearInterval(timer);
          found(url);
        }
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 250);
  timer.unref();
  return timer;
}
