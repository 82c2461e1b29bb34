/**
 * Self-check: the suite against the console's own bank endpoints (issue 7), which must pass every
 * case. It never touches the live bank: a private instance of createBankEndpoints runs on an
 * ephemeral 127.0.0.1 port with its own temporary data folder (its own event store, signed pairs
 * and a private event hub, so nothing reaches the live pages), one test customer kept in memory
 * (no vault: its secret key is never written), and the runner's JWKS as the service's keys. The
 * folder is removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConformanceReport } from '../../contract/schemas/conformance';
import { createBankEndpoints, createSignedPairs } from '../bank';
import { EventHub } from '../event-hub';
import { openEventStore } from '../store';
import { startConformance, type RunHooks, type RunnerOptions } from './runner';

/** The self-check's one customer: obj/sub the runner uses, the spec 2.5 fields the bank answers. */
export function selfCheckCustomer() {
  return {
    obj: 'DE00SELFCHECK0000000001',
    sub: 'self-check@conformance.invalid',
    external_id: 'self-check-0001',
    phone: '+10000000001',
    key: randomBytes(18).toString('base64url'),
    first_name: 'Self',
    last_name: 'Check',
  };
}

export interface SelfCheckOptions extends Omit<RunnerOptions, 'jwksPort'> {
  /** Where the temporary data folder goes (default: the OS temp folder). */
  tmpRoot?: string;
  /** What the private bank fetches the runner's JWKS with (default: the global fetch). */
  fetch?: typeof fetch;
  /** Told the runner's JWKS URL and the private bank's URL once both are up. */
  onReady?: (urls: { jwksUrl: string; bankUrl: string; total: number }) => void;
}

export async function runSelfCheck(
  options: SelfCheckOptions = {},
  hooks: Omit<RunHooks, 'kind'> = {},
): Promise<ConformanceReport> {
  const { tmpRoot, onReady, fetch: fetchImpl, ...runnerOptions } = options;
  const dir = await fs.mkdtemp(path.join(tmpRoot ?? os.tmpdir(), 'dets-conformance-self-check-'));
  const closers: Array<() => Promise<unknown>> = [() => fs.rm(dir, { recursive: true, force: true })];
  try {
    const runner = await startConformance({ ...runnerOptions, jwksPort: 0 });
    closers.unshift(() => runner.close());
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
      serviceJwksUrl: async () => runner.jwksUrl,
      fetch: fetchImpl ?? globalThis.fetch,
    });
    closers.unshift(() => bank.close());
    const customer = selfCheckCustomer();
    await bank.importCustomers([customer]);
    const listener = await bank.listen({ host: '127.0.0.1', port: 0 });
    onReady?.({ jwksUrl: runner.jwksUrl, bankUrl: listener.url, total: runner.total });
    return await runner.run(
      { bankAuthUrl: listener.url, obj: customer.obj, sub: customer.sub },
      { ...hooks, kind: 'self-check' },
    );
  } finally {
    for (const close of closers) await close().catch(() => undefined);
  }
}
