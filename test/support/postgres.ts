/**
 * A real PostgreSQL 15 for the team hub's tests (issue 30): a fresh cluster in a temporary folder
 * (initdb), listening on 127.0.0.1 only, on a free port, stopped by its PID. PostgreSQL refuses
 * to run as root, so as root the cluster is made and run as the `postgres` system user (the
 * Debian package creates it). Trust authentication: the cluster exists only for one test file,
 * on loopback.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';

const BIN = process.env.DETS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A running cluster: its URL (database `postgres`, user `dets`), a fresh database, and stop. */
export interface TestPostgres {
  url: string;
  pid: number;
  /** A new empty database in this cluster; its URL. */
  database(name: string): Promise<string>;
  /** Stops the server by its PID (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
}

function systemUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

async function waitReady(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`postgres exited ${proc.exitCode}: ${log()}`);
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.end();
      return;
    } catch {
      await c.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not start within 30 s: ${log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Makes and starts a cluster.
 *
 * @example
 * const db = await startPostgres(); const url = await db.database('t1'); … await db.stop();
 */
export async function startPostgres(
  options: {
    /** Where the cluster's folder is made (a small tmpfs, for a full disk); the system's tmp by default. */
    parent?: string;
    /** More initdb arguments (e.g. `--wal-segsize=1`). */
    initdb?: string[];
    /** More server settings, as `name=value`. */
    settings?: string[];
  } = {},
): Promise<TestPostgres> {
  const dir = fs.mkdtempSync(path.join(options.parent ?? os.tmpdir(), 'dets-pg-'));
  const data = path.join(dir, 'data');
  const user = systemUser();
  fs.mkdirSync(data, { mode: 0o700 });
  if (user) {
    fs.chmodSync(dir, 0o755);
    fs.chownSync(dir, user.uid, user.gid);
    fs.chownSync(data, user.uid, user.gid);
  }
  const init = spawnSync(
    path.join(BIN, 'initdb'),
    ['-D', data, '-U', 'dets', '-A', 'trust', '-E', 'UTF8', '--no-sync', ...(options.initdb ?? [])],
    {
      ...user,
      encoding: 'utf8',
    },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'];
  args.push('-c', 'max_connections=200', '-c', 'shared_buffers=32MB');
  for (const setting of options.settings ?? []) args.push('-c', setting);
  const proc = spawn(path.join(BIN, 'postgres'), args, { ...user, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 20_000) stderr += d.toString();
  });
  const url = `postgres://dets@127.0.0.1:${port}/postgres`;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    await waitReady(url, proc, () => stderr);
  } catch (err) {
    if (proc.exitCode === null) process.kill(proc.pid!, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    pid: proc.pid!,
    async database(name: string) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name.replace(/[^a-z0-9_]/g, '_')}`);
      } finally {
        await c.end();
      }
      return url.replace(/\/postgres$/, `/${name.replace(/[^a-z0-9_]/g, '_')}`);
    },
    async stop() {
      if (proc.exitCode === null) {
        process.kill(proc.pid!, 'SIGINT');
        const timer = setTimeout(() => proc.exitCode === null && process.kill(proc.pid!, 'SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
