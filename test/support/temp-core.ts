import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { createConsoleCore, type ConsoleCore, type CoreOptions } from '../../electron/core/console-core';

/**
 * A console core on a fresh temporary data folder, closed and removed when the current test
 * finishes (pass or fail).
 */
export async function tempCore(
  options: Omit<CoreOptions, 'dataDir' | 'host'> & { host?: CoreOptions['host'] } = {},
): Promise<{ core: ConsoleCore; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'dets-core-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const core = await createConsoleCore({ host: 'cli', ...options, dataDir: dir });
  onTestFinished(() => core.close());
  return { core, dir };
}

/** The value of a dispatched method, or an error naming the method and the core's answer. */
export async function valueOf<T>(core: ConsoleCore, method: string, input?: unknown): Promise<T> {
  const answer = await core.dispatch(method, input);
  if (!answer.ok) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.value as T;
}
