/**
 * Self-check: the suite against the console's own bank endpoints (issue 7; issue 27 item 4: the
 * callback cases and the `notify.*` cases), which must pass every case. It never touches the live
 * bank: a private copy of the bank endpoints (bank/private-copy.ts) runs on an ephemeral
 * 127.0.0.1 port with its own temporary data folder, one test customer kept in memory (no vault:
 * its secret key is never written), and the runner's JWKS as the service's keys. The
 * notification cases run with a probe over the copy's own store ("applied exactly once"). The
 * folder is removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Behaviours } from '../../contract/schemas/bank';
import type { ConformanceReport } from '../../contract/schemas/conformance';
import { privateBankCopy } from '../bank';
import { startAppliedProbe } from './applied-probe';
import { NOTIFY_CASES } from './notify-cases';
import { withNotifyCases } from './notify-report';
import { playNotifyCases } from './notify-run';
import { DEFAULT_GIVE_UP_MS, startConformance, type RunHooks, type RunnerOptions } from './runner';

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
  /**
   * Deliberate misbehaviour planted in the private copy (the Bank page's behaviours): none by
   * default, so the self-check shows a conforming bank; a test plants one to see it caught.
   */
  behaviours?: z.output<typeof Behaviours>;
  /** Told the runner's JWKS URL and the private bank's URL once both are up. */
  onReady?: (urls: { jwksUrl: string; bankUrl: string; notifyUrl: string; total: number }) => void;
}

/**
 * Runs the callback cases, then the `notify.*` cases, against a private copy of the bank
 * endpoints; one report of kind `self-check`.
 *
 * @example
 * const report = await runSelfCheck({}, { onCase: (c, done, total) => draw(c, done, total) });
 * report.failed; // 0: the console's own bank conforms
 */
export async function runSelfCheck(
  options: SelfCheckOptions = {},
  hooks: Omit<RunHooks, 'kind'> = {},
): Promise<ConformanceReport> {
  const { tmpRoot, onReady, fetch: fetchImpl, behaviours, ...runnerOptions } = options;
  const startedAt = Date.now();
  const runner = await startConformance({ ...runnerOptions, jwksPort: 0 });
  const closers: Array<() => Promise<unknown>> = [() => runner.close()];
  try {
    const customer = selfCheckCustomer();
    const copy = await privateBankCopy(
      { customers: [customer], ...(behaviours ? { behaviours } : {}) },
      {
        jwksUrl: runner.jwksUrl,
        label: 'dets-conformance-self-check-',
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
        ...(tmpRoot ? { tmpRoot } : {}),
      },
    );
    closers.unshift(() => copy.close());
    const probe = await startAppliedProbe(copy.store);
    closers.unshift(() => probe.close());
    const total = runner.total + NOTIFY_CASES.length;
    onReady?.({ jwksUrl: runner.jwksUrl, bankUrl: copy.url, notifyUrl: copy.url, total });
    const callbacks = await runner.run(
      { bankAuthUrl: copy.url, obj: customer.obj, sub: customer.sub },
      { ...hooks, onCase: (c, done) => hooks.onCase?.(c, done, total), kind: 'self-check' },
    );
    const notify = await playNotifyCases(
      {
        notifyUrl: copy.url,
        prefix: copy.notifyPrefix,
        probeUrl: probe.url,
        giveUpMs: runnerOptions.giveUpMs ?? DEFAULT_GIVE_UP_MS,
      },
      hooks,
      { offset: runner.total, total },
    );
    return withNotifyCases(callbacks, notify, { notifyUrl: copy.url, startedAt, finishedAt: Date.now() });
  } finally {
    for (const close of closers) await close().catch(() => undefined);
  }
}
