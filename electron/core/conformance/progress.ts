/**
 * `conformance.progressed`, the live event the Conformance page draws its table and countdown
 * from: sent as a run starts, as each case begins, waits and finishes, and as the run ends or
 * fails, with the counts so far.
 */
import type {
  CaseResult,
  ConformanceActivity,
  ConformanceProgress,
} from '../../contract/schemas/conformance';
import type { CoreDeps } from '../core-types';

/** A progress event without its counts (they are counted from the cases so far). */
export type ProgressEvent = Omit<ConformanceProgress, 'passed' | 'failed' | 'skipped'>;

/** What every progress event of one run repeats. */
export type ProgressBase = Omit<ProgressEvent, 'phase' | 'done'>;

/**
 * Emits one progress event with the counts of `cases`; a listener's failure never stops the run.
 *
 * @example
 * emitProgress(deps.events, { ...base, phase: 'started', done: 0 }, []);
 */
export function emitProgress(events: CoreDeps['events'], event: ProgressEvent, cases: CaseResult[]): void {
  try {
    events.emit('conformance.progressed', {
      ...event,
      passed: cases.filter((c) => c.status === 'passed').length,
      failed: cases.filter((c) => c.status === 'failed').length,
      skipped: cases.filter((c) => c.status === 'skipped').length,
    });
  } catch {
    // a listener's failure never stops the run
  }
}

/**
 * The hooks that turn a run's cases and activity into progress events, once `base()` is known
 * (a self-check learns its URLs only when its private bank is up). `cases` collects the results.
 */
export function progressHooks(
  events: CoreDeps['events'],
  cases: CaseResult[],
  base: () => ProgressBase | null,
) {
  return {
    onCase: (c: CaseResult, done: number) => {
      cases.push(c);
      const b = base();
      if (b) emitProgress(events, { ...b, phase: 'case', done, case: c }, cases);
    },
    onActivity: (activity: ConformanceActivity) => {
      const b = base();
      if (b) emitProgress(events, { ...b, phase: 'activity', done: cases.length, activity }, cases);
    },
  };
}
