/**
 * The conformance suite's method handlers (issue 7): `conformance.run` against a bank's own
 * callbacks, `conformance.runNotify` against its notification endpoints (issue 27),
 * `conformance.selfCheck` (both) against a private instance of the console's bank endpoints,
 * the last report and its export, and `conformance.progressed` as each case begins, waits and
 * finishes (progress.ts). One run at a time (run-slot.ts).
 */
import { ConsoleError } from '../../contract/errors';
import { SPEC_NOTIFY_PREFIX } from '../../contract/schemas/service-paths';
import type { ConformanceReport } from '../../contract/schemas/conformance';
import type { Handlers } from '../../contract';
import type { CoreDeps } from '../core-types';
import type { conformanceMethods } from '../../contract/domains/conformance';
import { DEFAULT_JWKS_PORT, runnerJwksUrl } from './jwks-server';
import { emitProgress, progressHooks, type ProgressBase } from './progress';
import { junitFile, reportFile } from './report';
import { RunSlot } from './run-slot';
import { NOTIFY_CASES } from './notify-cases';
import { notifyReport, playNotifyCases } from './notify-run';
import { DEFAULT_GIVE_UP_MS, startConformance, type ConformanceRunner } from './runner';
import { runSelfCheck } from './self-check';

type RunArgs = Parameters<Handlers['conformance.run']>[0];

/** "JWKS port 7303 is in use…": a listen error a person can act on. */
export function describeListenError(err: unknown, port: number): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE')
    return `JWKS port ${port} on 127.0.0.1 is in use: stop what holds it or choose another JWKS port`;
  if (code === 'EACCES') return `JWKS port ${port} on 127.0.0.1 may not be used by this user: choose another`;
  return `the runner's JWKS could not be served on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`;
}

/** `conformance.run`: a runner on the asked JWKS port against the bank, closed when done. */
function runAgainstBank(deps: CoreDeps, slot: RunSlot, args: RunArgs): Promise<ConformanceReport> {
  return slot.exclusive('run', async (runId, cases) => {
    const port = args.jwks_port ?? DEFAULT_JWKS_PORT;
    let runner: ConformanceRunner;
    try {
      runner = await startConformance({ jwksPort: port });
    } catch (err) {
      throw new ConsoleError('CONFLICT', describeListenError(err, port));
    }
    slot.activeRunner = runner;
    const base: ProgressBase = {
      run_id: runId,
      kind: 'run',
      total: runner.total,
      jwks_url: runner.jwksUrl,
      bank_auth_url: args.bank_auth_url,
    };
    try {
      emitProgress(deps.events, { ...base, phase: 'started', done: 0 }, cases);
      const report = await runner.run(
        { bankAuthUrl: args.bank_auth_url, obj: args.obj, sub: args.sub },
        { kind: 'run', ...progressHooks(deps.events, cases, () => base) },
      );
      emitProgress(deps.events, { ...base, phase: 'finished', done: cases.length }, cases);
      return report;
    } finally {
      slot.activeRunner = null;
      await runner.close();
    }
  });
}

type NotifyArgs = Parameters<Handlers['conformance.runNotify']>[0];

/** `conformance.runNotify`: the `notify.*` cases against the bank's notification endpoints. */
function runNotify(deps: CoreDeps, slot: RunSlot, args: NotifyArgs): Promise<ConformanceReport> {
  return slot.exclusive('run', async (runId, cases) => {
    const notifyUrl = args.notify_url.replace(/\/+$/, '');
    const base: ProgressBase = {
      run_id: runId,
      kind: 'run',
      total: NOTIFY_CASES.length,
      jwks_url: null,
      bank_auth_url: null,
      notify_url: notifyUrl,
    };
    const startedAt = Date.now();
    emitProgress(deps.events, { ...base, phase: 'started', done: 0 }, cases);
    const results = await playNotifyCases(
      {
        notifyUrl,
        prefix: args.prefix ?? SPEC_NOTIFY_PREFIX,
        ...(args.probe_url ? { probeUrl: args.probe_url.replace(/\/+$/, '') } : {}),
        giveUpMs: DEFAULT_GIVE_UP_MS,
      },
      progressHooks(deps.events, cases, () => base),
    );
    const expected = args.expected_failures ? new Map(Object.entries(args.expected_failures)) : null;
    const report = notifyReport(results, { notifyUrl, startedAt, finishedAt: Date.now() }, expected);
    emitProgress(deps.events, { ...base, phase: 'finished', done: cases.length }, cases);
    return report;
  });
}

/** `conformance.selfCheck`: progress starts once the private bank and JWKS are up. */
function selfCheck(deps: CoreDeps, slot: RunSlot): Promise<ConformanceReport> {
  return slot.exclusive('self-check', async (runId, cases) => {
    let base: ProgressBase | null = null;
    const report = await runSelfCheck(
      {
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
        onReady: ({ jwksUrl, bankUrl, notifyUrl, total }) => {
          base = {
            run_id: runId,
            kind: 'self-check',
            total,
            jwks_url: jwksUrl,
            bank_auth_url: bankUrl,
            notify_url: notifyUrl,
          };
          emitProgress(deps.events, { ...base, phase: 'started', done: 0 }, cases);
        },
      },
      progressHooks(deps.events, cases, () => base),
    );
    const ready = base as ProgressBase | null;
    if (ready) emitProgress(deps.events, { ...ready, phase: 'finished', done: cases.length }, cases);
    return report;
  });
}

/**
 * The conformance methods of the contract, with `close` for the core's shutdown.
 *
 * @example
 * const handlers = conformanceHandlers(deps);
 * const report = await handlers['conformance.selfCheck']();
 */
export function conformanceHandlers(
  deps: CoreDeps,
): Pick<Handlers, keyof typeof conformanceMethods> & { close?: () => Promise<void> } {
  const slot = new RunSlot(deps.events);
  return {
    'conformance.run': (args) => runAgainstBank(deps, slot, args),
    'conformance.runNotify': (args) => runNotify(deps, slot, args),
    'conformance.selfCheck': () => selfCheck(deps, slot),
    // Issue 13 item 6: when the bank under test is the console's own, it must trust the runner's
    // keys as a real bank would be configured to; the answer lets the page put the old URL back.
    'conformance.trustRunnerJwks': async (args) =>
      (await deps.bank()).setServiceJwksUrl(runnerJwksUrl(args.jwks_port)),
    'conformance.lastReport': async () => slot.last,
    'conformance.export': async (args) => {
      if (!slot.last)
        throw new ConsoleError(
          'NOT_FOUND',
          'no conformance report yet: run the suite or the self-check first',
        );
      return args.format === 'json' ? reportFile(slot.last) : junitFile(slot.last);
    },
    close: () => slot.close(),
  };
}
