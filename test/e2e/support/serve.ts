import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT } from './build';

export interface ServeReady {
  ready: true;
  ui: string;
  bank?: string;
  sandbox?: string;
  /** With --tunnel: the public URL the tunnel made. */
  public?: string;
}

export interface ServeProcess {
  ready: ServeReady;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** SIGTERM, wait for the exit, remove the data directory (unless given); resolves to the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `dets-console serve --ui-port 0 --bank-port 0 --sandbox-port 0 --json` on a fresh data
 * directory (or `options.dataDir`) and waits for its one JSON ready line on stdout (DESIGN.md, Command line). The bank
 * endpoints and the sandbox get free ports too (parallel test files must not fight over 7301 and
 * 7302) unless `extraArgs` chooses otherwise.
 */
export async function startServe(
  extraArgs: string[] = [],
  timeoutMs = 30_000,
  options: { dataDir?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ServeProcess> {
  // A given data directory belongs to the caller (a restart on the same profile): stop keeps it.
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'dets-e2e-data-')));
  const sandboxArgs = extraArgs.some((a) => a === '--sandbox-port' || a === '--no-sandbox')
    ? []
    : ['--sandbox-port', '0'];
  const bankArgs = extraArgs.includes('--bank-port') ? [] : ['--bank-port', '0'];
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--ui-port',
      '0',
      ...bankArgs,
      ...sandboxArgs,
      '--json',
      '--data-dir',
      dataDir,
      ...extraArgs,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env, DETS_DATA_DIR: dataDir },
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const ready = await new Promise<ServeReady>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => reject(new Error(`serve printed no ready line in ${timeoutMs} ms; stderr:\n${stderr}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        const line = JSON.parse(stdout.slice(0, nl)) as ServeReady;
        if (line.ready !== true || typeof line.ui !== 'string') throw new Error('not a ready line');
        resolve(line);
      } catch (err) {
        reject(
          new Error(
            `serve's first stdout line is not the JSON ready line: ${stdout.slice(0, nl)} (${String(err)})`,
          ),
        );
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before it was ready; stderr:\n${stderr}`));
    });
  });

  let stopped: Promise<number | null> | null = null;
  return {
    ready,
    dataDir,
    child,
    stderr: () => stderr,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const code = await Promise.race([
          exited,
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000).unref()),
        ]);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await exited;
          throw new Error(`serve did not exit within 10 s of SIGTERM; its stderr:\n${stderr.slice(-4000)}`);
        }
        if (!options.dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
        return code;
      })();
      return stopped;
    },
  };
}

/** Calls a ConsoleApi method over HTTP with the launch token (electron/contract/transport.ts). */
export async function callApi(serve: ServeProcess, method: string, input?: unknown): Promise<unknown> {
  const url = new URL(serve.ready.ui);
  const res = await fetch(`${url.origin}/api/call/${method}`, {
    method: 'POST',
    headers: { 'X-DETS-Token': url.searchParams.get('token')!, 'content-type': 'application/json' },
    body: input === undefined ? '' : JSON.stringify(input),
  });
  const envelope = (await res.json()) as { ok: boolean; value?: unknown; error?: unknown };
  if (!envelope.ok) throw new Error(`${method}: ${JSON.stringify(envelope.error)}`);
  return envelope.value;
}

/**
 * Posts a pay-in notification with a fresh transaction_id to serve's bank listener, as the
 * service would, and returns that id once the bank acknowledged it (200).
 */
export async function postNotification(serve: ServeProcess): Promise<string> {
  const transactionId = randomUUID();
  const posted = await fetch(`${serve.ready.bank}/api/svc/notify/pay-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ transaction_id: transactionId }),
  });
  if (posted.status !== 200) throw new Error(`the bank answered the notification ${posted.status}`);
  return transactionId;
}
