/**
 * For the vault tests: temp data folders, an in-memory keychain that counts its calls, a scan of
 * a data folder for secret bytes in every encoding we might leak them in, and a child Node
 * process that tries the real vault under another environment (a D-Bus session bus that is
 * missing, unset or wedged), with a hard kill so a hang fails the test instead of stalling it.
 */
import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { workersBeside } from '../../support/worker-files';
import { ConsoleError } from '../../../electron/contract/errors';
import type { KeychainBackend } from '../../../electron/core/vault';

// ------------------------------------------------------------------------------ cleanup

const cleanups: Array<() => Promise<unknown>> = [];

export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop() as () => Promise<unknown>;
    await fn().catch(() => undefined);
  }
}

export function onCleanup(fn: () => Promise<unknown>): void {
  cleanups.push(fn);
}

export async function tempDir(prefix = 'dets-vault-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.unshift(() => fs.rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

// ----------------------------------------------------------------------- fake keychain

export interface MemoryKeychain extends KeychainBackend {
  items: Map<string, string>;
  calls: Array<{ op: 'get' | 'set' | 'delete'; account: string }>;
  /** When set, every call rejects with it (a keychain that is not there). */
  failWith?: ConsoleError;
}

export function memoryKeychain(): MemoryKeychain {
  const kc: MemoryKeychain = {
    items: new Map(),
    calls: [],
    async get(service, account) {
      kc.calls.push({ op: 'get', account });
      if (kc.failWith) throw kc.failWith;
      return kc.items.get(`${service}\n${account}`) ?? null;
    },
    async set(service, account, secret) {
      kc.calls.push({ op: 'set', account });
      if (kc.failWith) throw kc.failWith;
      kc.items.set(`${service}\n${account}`, secret);
    },
    async delete(service, account) {
      kc.calls.push({ op: 'delete', account });
      if (kc.failWith) throw kc.failWith;
      return kc.items.delete(`${service}\n${account}`);
    },
  };
  return kc;
}

/** A keychain that fails the test if the vault ever asks it anything (passphrase vaults). */
export const noKeychain: KeychainBackend = {
  get: () => Promise.reject(new Error('the keychain must not be used here')),
  set: () => Promise.reject(new Error('the keychain must not be used here')),
  delete: () => Promise.reject(new Error('the keychain must not be used here')),
};

export const unavailableError = () =>
  new ConsoleError(
    'KEYCHAIN_UNAVAILABLE',
    'No Secret Service on the session bus (test): install gnome-keyring',
  );

// ----------------------------------------------------------------------------- scanning

/** Every file under dir, recursively, with its bytes. */
export async function readTree(dir: string): Promise<Array<{ file: string; bytes: Buffer }>> {
  const out: Array<{ file: string; bytes: Buffer }> = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, bytes: await fs.readFile(file) });
  }
  return out;
}

/**
 * The files under dir that hold `secret` raw, in hex (either case), base64 or base64url. Returns
 * file names only, so a failing assertion never prints the secret.
 */
export async function filesHolding(dir: string, secret: Buffer): Promise<string[]> {
  const needles = [
    secret,
    Buffer.from(secret.toString('hex')),
    Buffer.from(secret.toString('hex').toUpperCase()),
    Buffer.from(secret.toString('base64').replace(/=+$/, '')),
    Buffer.from(secret.toString('base64url')),
  ];
  const hits: string[] = [];
  for (const { file, bytes } of await readTree(dir)) {
    if (needles.some((n) => bytes.includes(n))) hits.push(file);
  }
  return hits;
}

// ------------------------------------------------------------------------- secret-tool

/**
 * What `secret-tool search --all service "DETS Console" username <account>` lists, without the
 * secret: only its label and attribute lines are kept (it prints the secret on stdout).
 */
export function secretToolAttributes(account: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'secret-tool',
      ['search', '--all', 'service', 'DETS Console', 'username', account],
      { timeout: 15_000 },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new Error('secret-tool is not installed (apt-get install libsecret-tools)'));
          return;
        }
        const lines = `${stdout}\n${stderr}`
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => /^(label|attribute\.[a-z_]+) = /.test(l));
        resolve(lines);
      },
    );
  });
}

// ------------------------------------------------------------------------- child process

const here = path.dirname(fileURLToPath(import.meta.url));
let bundled: Promise<string> | undefined;

/** The child fixture bundled into one ESM file (the child is plain Node: no TypeScript loader). */
function childScript(): Promise<string> {
  bundled ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-vault-child-'));
    process.once(
      'exit',
      () => void fs.rm(dir, { recursive: true, force: true, maxRetries: 5 }).catch(() => undefined),
    );
    const outfile = path.join(dir, 'try-sealer.mjs');
    await build({
      entryPoints: [path.join(here, 'fixtures/try-sealer.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
    });
    await workersBeside(dir);
    return outfile;
  })();
  return bundled;
}

export interface ChildOutcome {
  /** What the child printed: the sealer's outcome and the status after it. */
  result: {
    ok: boolean;
    code?: string;
    message?: string;
    status?: { state: string; kind: string | null; detail: string; code?: string };
  } | null;
  exitCode: number | null;
  /** Set when the hard kill had to end it: the vault hung. */
  killed: boolean;
  stderr: string;
}

/**
 * Runs the real vault's sealer() in a child process with `env` (merged over this process's),
 * killed after hardKillMs: a child that had to be killed means the vault hung.
 */
export async function trySealerInChild(options: {
  dataDir: string;
  env: Record<string, string | undefined>;
  keychainTimeoutMs?: number;
  hardKillMs?: number;
}): Promise<ChildOutcome> {
  const script = await childScript();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(options.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const modulePath = createRequire(import.meta.url).resolve('@napi-rs/keyring');
  const args = JSON.stringify({
    dataDir: options.dataDir,
    modulePath,
    keychainTimeoutMs: options.keychainTimeoutMs,
  });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, options.hardKillMs ?? 20_000);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop();
      let result: ChildOutcome['result'];
      try {
        result = line ? (JSON.parse(line) as ChildOutcome['result']) : null;
      } catch {
        result = null;
      }
      resolve({ result, exitCode, killed, stderr });
    });
  });
}
