/**
 * One conformance run at a time per core, and the last report. A second run is refused
 * (CONFLICT) rather than queued, since both would serve a JWKS and the bank under test would see
 * two services at once. A run that fails is told as an `error` progress event before it throws.
 */
import { randomUUID } from 'node:crypto';
import { ConsoleError } from '../../contract/errors';
import type { CaseResult, ConformanceReport } from '../../contract/schemas/conformance';
import type { CoreDeps } from '../core-types';
import { emitProgress } from './progress';
import type { ConformanceRunner } from './runner';

/** A run's body: given its id and the list its cases are collected into. */
export type RunBody = (runId: string, cases: CaseResult[]) => Promise<ConformanceReport>;

/**
 * The slot a run occupies, with the report of the last finished one.
 *
 * @example
 * const slot = new RunSlot(deps.events);
 * const report = await slot.exclusive('run', async (runId, cases) => runner.run(target));
 * slot.last === report; // true
 */
export class RunSlot {
  private running: Promise<ConformanceReport> | null = null;
  /** The runner of a `conformance.run` in progress (closed first when the core closes). */
  activeRunner: ConformanceRunner | null = null;
  /** The last finished run's report. */
  last: ConformanceReport | null = null;

  constructor(private readonly events: CoreDeps['events']) {}

  /** Runs `body` alone, or throws CONFLICT while another run holds the slot. */
  async exclusive(kind: ConformanceReport['kind'], body: RunBody): Promise<ConformanceReport> {
    if (this.running)
      throw new ConsoleError('CONFLICT', 'a conformance run is in progress: wait for it to finish');
    const runId = randomUUID();
    const cases: CaseResult[] = [];
    this.running = body(runId, cases);
    try {
      const report = await this.running;
      this.last = report;
      return report;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      emitProgress(
        this.events,
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
      this.running = null;
    }
  }

  /** Stops a run's JWKS and waits for the run to end (its failure is its caller's). */
  async close(): Promise<void> {
    await this.activeRunner?.close();
    await this.running?.catch(() => undefined);
  }
}
