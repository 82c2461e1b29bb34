/**
 * The long-running owners' start (`serve`, `sandbox`; DESIGN.md "Storage": one owner per
 * profile), and the refusal a held profile becomes on the command line.
 */
import { ConsoleError } from '../../contract';
import { createConsoleCore, type ConsoleCore, type CoreOptions } from '../../core/console-core';
import { UsageError } from '../io';

/**
 * A profile another process holds (store/owner.ts: a second owner, or an owner or recovery
 * beside `store recover`) as the one-line exit-2 refusal naming it; undefined for other errors.
 */
export function claimRefused(err: unknown): UsageError | undefined {
  if (!(err instanceof ConsoleError) || err.code !== 'CONFLICT') return undefined;
  const holder = (err.details as { holder?: unknown } | undefined)?.holder;
  return holder === undefined ? undefined : new UsageError(err.message);
}

/**
 * The core of a long-running owner (`serve`, `sandbox`): it claims the profile before anything
 * opens it (DESIGN.md "Storage"); a stop while it waits for a running `store recover` ends the
 * wait, and a profile another owner holds is the exit-2 refusal naming it.
 */
export async function ownerCore(options: CoreOptions, stopped: Promise<unknown>): Promise<ConsoleCore> {
  const stopWaiting = new AbortController();
  void stopped.then(() => stopWaiting.abort());
  return createConsoleCore({ ...options, stopWaiting: stopWaiting.signal }).catch((err: unknown) => {
    throw claimRefused(err) ?? err;
  });
}
