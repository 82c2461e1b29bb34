/**
 * The evidence pack's promise (issue 26 items 2 and 5), asserted the same way by the core and
 * end-to-end tests: every done step has its time and at least one proof, each with a time.
 */
import { expect } from 'vitest';

/** A step of an exported evidence pack, as far as the assertion reads it. */
export interface PackStep {
  id: string;
  state: string;
  at: string | null;
  proved_by: Array<{ kind: string; id: string; at: string | null }>;
}

/** Asserts every done step of `steps` has `at` and timed proofs. */
export function expectDoneStepsProven(steps: readonly PackStep[]): void {
  for (const s of steps.filter((x) => x.state === 'done')) {
    expect(s.at, s.id).not.toBeNull();
    expect(s.proved_by.length, s.id).toBeGreaterThan(0);
    expect(
      s.proved_by.filter((p) => p.at === null),
      s.id,
    ).toEqual([]);
  }
}
