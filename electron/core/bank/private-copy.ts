/**
 * A private copy of the console's bank endpoints (the conformance self-check, a scenario run
 * from the page): its own temporary data folder with its own event store, signed pairs and event
 * hub, so nothing it records reaches the live pages or the profile; trusting the JWKS it is
 * given (the runner's) as the service's keys, so the live bank's trust is never touched; on an
 * ephemeral 127.0.0.1 port. Seeded from the live bank (its customers, behaviours, forward setting
 * and notification prefix) or from a directory of its own (the self-check's one customer, kept
 * in memory: no vault, so no secret key is written). Closed in reverse order of opening, and the
 * folder removed.
 *
 * Threat model: the copy listens on loopback only, for the length of one run; its folder is
 * created with mkdtemp (mode 0700) and removed on close whatever happened.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import type { Behaviours, Customer } from '../../contract/schemas/bank';
import { EventHub } from '../event-hub';
import { openEventStore, type EventStore } from '../store';
import { createBankEndpoints } from './bank';
import { createSignedPairs } from './signed-pairs';
import type { BankEndpoints } from './types';

/** What a private copy starts from: the live bank, or a directory of its own. */
export type PrivateBankSeed =
  | { live: BankEndpoints }
  | {
      customers: Customer[];
      /** Deliberate misbehaviour (the Bank page's behaviours); none by default. */
      behaviours?: z.output<typeof Behaviours>;
    };

export interface PrivateBankOptions {
  /** The service's keys as the copy trusts them (a runner's JWKS). */
  jwksUrl: string;
  /** What the copy fetches that JWKS with (default: the global fetch). */
  fetch?: typeof fetch;
  /** Where its temporary folder goes (default: the OS temp folder). */
  tmpRoot?: string;
  /** The folder's name prefix, naming who made it (`dets-conformance-self-check-`). */
  label: string;
}

/** A running private copy: its endpoints, store and folder, closed as one. */
export interface PrivateBank {
  bank: BankEndpoints;
  /** Its own event store: what the copy received, and nothing else. */
  store: EventStore;
  /** Its temporary data folder (other run-scoped state may live in it; removed on close). */
  dir: string;
  /** Its listener's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The notification path prefix it answers under (the live bank's, or the spec's). */
  notifyPrefix: string;
  /** Runs `close` first when the copy closes (something opened on top of it). */
  onClose(close: () => Promise<unknown>): void;
  close(): Promise<void>;
}

/**
 * Starts a private copy of the bank endpoints (see the module comment).
 *
 * @example
 * const copy = await privateBankCopy({ live: await deps.bank() }, { jwksUrl: keys.jwksUrl, label: 'dets-scenario-run-' });
 * try { await run(copy.url); } finally { await copy.close(); }
 */
export async function privateBankCopy(
  seed: PrivateBankSeed,
  options: PrivateBankOptions,
): Promise<PrivateBank> {
  const dir = await fs.mkdtemp(path.join(options.tmpRoot ?? os.tmpdir(), options.label));
  const closers: Array<() => Promise<unknown>> = [() => fs.rm(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const c of closers.splice(0)) await c().catch(() => undefined);
  };
  try {
    const events = new EventHub();
    const store = await openEventStore({ dataDir: dir, events });
    closers.unshift(() => store.close());
    const pairs = createSignedPairs({ dataDir: dir });
    closers.unshift(() => pairs.close?.() ?? Promise.resolve());
    const bank = await createBankEndpoints({
      dataDir: dir,
      events,
      store,
      pairs,
      serviceJwksUrl: async () => options.jwksUrl,
      fetch: options.fetch ?? globalThis.fetch,
    });
    closers.unshift(() => bank.close());
    if ('live' in seed) {
      const status = await seed.live.status();
      await bank.importCustomers(await seed.live.exportCustomers());
      await bank.setBehaviours(status.behaviours);
      await bank.setForward(status.forward);
      await bank.setNotifyPrefix(status.notify_path_prefix);
    } else {
      await bank.importCustomers(seed.customers);
      if (seed.behaviours) await bank.setBehaviours(seed.behaviours);
    }
    const listener = await bank.listen({ host: '127.0.0.1', port: 0 });
    const notifyPrefix = (await bank.status()).notify_path_prefix;
    return {
      bank,
      store,
      dir,
      url: listener.url,
      notifyPrefix,
      onClose: (c) => closers.unshift(c),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
