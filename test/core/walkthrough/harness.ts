/**
 * The real core for walkthrough tests: createConsoleCore on a fresh data directory, the
 * sandbox and the bank endpoints on 127.0.0.1:0; every core closed and folder removed by
 * `closeAll` (afterEach).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { methods, type MethodOutput } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';

const cores: ConsoleCore[] = [];
const dirs: string[] = [];

export async function closeAll(): Promise<void> {
  for (const core of cores.splice(0)) await core.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
}

export async function newDataDir(): Promise<string> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-walkthrough-'));
  dirs.push(dataDir);
  return dataDir;
}

/** A core on `dataDir`, not listening yet; `env` adds to its environment, `publicUrl` is serve's flag. */
export async function openCore(
  dataDir: string,
  extra: { env?: NodeJS.ProcessEnv; publicUrl?: string } = {},
): Promise<ConsoleCore> {
  const core = await createConsoleCore({
    dataDir,
    host: 'cli',
    env: { DETS_VAULT_PASSPHRASE: 'walkthrough test passphrase', ...extra.env },
    ...(extra.publicUrl ? { publicUrl: extra.publicUrl } : {}),
  });
  cores.push(core);
  return core;
}

/** Forgets a core the test closed itself. */
export function forget(core: ConsoleCore): void {
  cores.splice(cores.indexOf(core), 1);
}

export async function call<M extends keyof typeof methods>(core: ConsoleCore, method: M, input?: unknown) {
  const envelope = await core.dispatch(method, input);
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error.code} ${envelope.error.message}`);
  return methods[method].output.parse(envelope.value) as MethodOutput<M>;
}
