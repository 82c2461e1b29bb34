/**
 * The conformance suite's method handlers (issue 7): `conformance.run` against a bank's own
 * callbacks, `conformance.selfCheck` against a private instance of the console's bank endpoints,
 * the last report and its export, and `conformance.progressed` as each case begins, waits and finishes.
 *
 * One run at a time per core: a second is refused (CONFLICT) rather than queued, since both
 * would serve a JWKS and the bank under test would see two services at once.
 */
import { randomUUID } from 'node:crypto';
import { ConsoleError } from '../../contract/errors';
import type { CaseResult, ConformanceProgress, ConformanceReport } from '../../contract/schemas/conformance';
import type { Handlers } from '../../contract';
import type { CoreDeps } from '../core-types';
import type { conformanceMethods } from '../../contract/domains/conformance';
import { DEFAULT_JWKS_PORT, runnerJwksUrl } from './jwks-server';
import { junitFile, reportFile } from './report';
import { startConformance, type ConformanceRunner } from './runner';
import { runSelfCheck } from './self-check';

export {
  startConformance,
  type ConformanceRunner,
  type ConformanceTarget,
  type RunnerOptions,
} from './runner';
export { runSelfCheck, selfCheckCustomer } from './self-check';
export { summaryJson, toJunit, reportFile, junitFile, xmlEscape } from './report';
export { DEFAULT_JWKS_PORT, runnerJwksUrl } from './jwks-server';
export { planCases } from './plan';

/** "JWKS port 7303 is in use…": a listen error a person can act on. */
export function describeListenError(err: unknown, port: number): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE')
    return `JWKS port ${port} on 127.0.0.1 is in use: stop what holds it or choose another JWKS port`;
  if (code === 'EACCES') return `JWKS port ${port} on 127.0.0.1 may not be used by this user: choose another`;
  return `the runner's JWKS could not be served on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`;
}

export function conformanceHandlers(
  deps: CoreDeps,
): Pick<Handlers, keyof typeof conformanceMethods> & { close?: () => Promise<void> } {
  let running: Promise<ConformanceReport> | null = null;
  let last: ConformanceReport | null = null;
  let activeRunner: ConformanceRunner | null = null;

  const progress = (
    base: Omit<ConformanceProgress, 'passed' | 'failed' | 'skipped'>,
    cases: CaseResult[],
  ) => {
    try {
      deps.events.emit('conformance.progressed', {
        ...base,
        passed: cases.filter((c) => c.status === 'passed').length,
        failed: cases.filter((c) => c.status === 'failed').length,
        skipped: cases.filter((c) => c.status === 'skipped').length,
      });
    } catch {
      // a listener's failure never stops the run
    }
  };

  async function exclusive(
    kind: ConformanceReport['kind'],
    body: (runId: string, cases: CaseResult[]) => Promise<ConformanceReport>,
  ): Promise<ConformanceReport> {
    if (running)
      throw new ConsoleError('CONFLICT', 'a conformance run is in progress: wait for it to finish');
    const runId = randomUUID();
    const cases: CaseResult[] = [];
    running = body(runId, cases);
    try {
      const report = await running;
      last = report;
      return report;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      progress(
        {
          run_id: runId,
          kind,
          phase: 'error',
          total: 0,
          done: cases.length,
          jwks_url: null,
          bank_auth_url: null,
          error: message,
        },
        cases,
      );
      throw err;
    } finally {
      running = null;
    }
  }

  return {
    'conformance.run': (args) =>
      exclusive('run', async (runId, cases) => {
        const port = args.jwks_port ?? DEFAULT_JWKS_PORT;
        let runner: ConformanceRunner;
        try {
          runner = await startConformance({ jwksPort: port });
        } catch (err) {
          throw new ConsoleError('CONFLICT', describeListenError(err, port));
        }
        activeRunner = runner;
        const base = {
          run_id: runId,
          kind: 'run' as const,
          total: runner.total,
          jwks_url: runner.jwksUrl,
          bank_auth_url: args.bank_auth_url,
        };
        try {
          progress({ ...base, phase: 'started', done: 0 }, cases);
          const report = await runner.run(
            { bankAuthUrl: args.bank_auth_url, obj: args.obj, sub: args.sub },
            {
              kind: 'run',
              onCase: (c, done) => {
                cases.push(c);
                progress({ ...base, phase: 'case', done, case: c }, cases);
              },
              onActivity: (activity) =>
                progress({ ...base, phase: 'activity', done: cases.length, activity }, cases),
            },
          );
          progress({ ...base, phase: 'finished', done: cases.length }, cases);
          return report;
        } finally {
          activeRunner = null;
          await runner.close();
        }
      }),
    'conformance.selfCheck': () =>
      exclusive('self-check', async (runId, cases) => {
        type Base = Omit<ConformanceProgress, 'phase' | 'done' | 'passed' | 'failed' | 'skipped'>;
        const ready: { base: Base | null } = { base: null };
        const report = await runSelfCheck(
          {
            ...(deps.fetch ? { fetch: deps.fetch } : {}),
            onReady: ({ jwksUrl, bankUrl, total }) => {
              ready.base = {
                run_id: runId,
                kind: 'self-check',
                total,
                jwks_url: jwksUrl,
                bank_auth_url: bankUrl,
              };
              progress({ ...ready.base, phase: 'started', done: 0 }, cases);
            },
          },
          {
            onCase: (c, done) => {
              cases.push(c);
              if (ready.base) progress({ ...ready.base, phase: 'case', done, case: c }, cases);
            },
            onActivity: (activity) => {
              if (ready.base)
                progress({ ...ready.base, phase: 'activity', done: cases.length, activity }, cases);
            },
          },
        );
        if (ready.base) progress({ ...ready.base, phase: 'finished', done: cases.length }, cases);
        return report;
      }),
    // Issue 13 item 6: when the bank under test is the console's own, it must trust the runner's
    // keys as a real bank would be configured to; the answer lets the page put the old URL back.
    'conformance.trustRunnerJwks': async (args) =>
      (await deps.bank()).setServiceJwksUrl(runnerJwksUrl(args.jwks_port)),
    'conformance.lastReport': async () => last,
    'conformance.export': async (args) => {
      if (!last)
        throw new ConsoleError(
          'NOT_FOUND',
          'no conformance report yet: run the suite or the self-check first',
        );
      return args.format === 'json' ? reportFile(last) : junitFile(last);
    },
    close: async () => {
      await activeRunner?.close();
      await running?.catch(() => undefined);
    },
  };
}
