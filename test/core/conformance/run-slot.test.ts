/**
 * One conformance run at a time (run-slot.ts, issue 25 item 1: the rule that lived in the
 * handlers' closure): a second run is refused with CONFLICT while one holds the slot, a failed
 * run is told as an `error` progress event (checked by the contract's schema) and leaves the last
 * report as it was, and the slot is free again afterwards.
 */
import { describe, expect, it } from 'vitest';
import type {
  CaseResult,
  ConformanceProgress,
  ConformanceReport,
} from '../../../electron/contract/schemas/conformance';
import { emitProgress } from '../../../electron/core/conformance/progress';
import { RunSlot } from '../../../electron/core/conformance/run-slot';
import { EventHub } from '../../../electron/core/event-hub';

const report = (passed: number): ConformanceReport => ({
  kind: 'run',
  bank_auth_url: 'http://127.0.0.1:9/auth',
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  jwks_url: 'http://127.0.0.1:7303/.well-known/jwks.json',
  kids: ['k1'],
  jwks_fetches: 1,
  started_at: '2026-11-27T08:00:00.000Z',
  finished_at: '2026-11-27T08:00:01.000Z',
  duration_ms: 1000,
  passed,
  failed: 0,
  skipped: 0,
  cases: [],
});

const skipped = (id: string): CaseResult => ({
  id,
  title: id,
  route: '/user_auth',
  spec: '4.2',
  status: 'skipped',
  detail: 'not run',
  duration_ms: 0,
  exchanges: [],
});

describe('RunSlot', () => {
  it('refuses a second run while one runs, keeps the last report, and frees the slot after', async () => {
    const slot = new RunSlot(new EventHub());
    let release!: () => void;
    const first = slot.exclusive(
      'run',
      () => new Promise<ConformanceReport>((resolve) => (release = () => resolve(report(3)))),
    );
    await expect(slot.exclusive('self-check', async () => report(1))).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    release();
    expect(await first).toMatchObject({ passed: 3 });
    expect(slot.last?.passed).toBe(3);
    expect(await slot.exclusive('self-check', async () => report(5))).toMatchObject({ passed: 5 });
    expect(slot.last?.passed).toBe(5);
  });

  it('tells a failed run as an error event with the cases so far, and keeps the previous report', async () => {
    const hub = new EventHub();
    const seen: ConformanceProgress[] = [];
    hub.on('conformance.progressed', (p) => seen.push(p));
    const slot = new RunSlot(hub);
    await slot.exclusive('run', async () => report(2));
    await expect(
      slot.exclusive('run', async (_runId, cases) => {
        cases.push(skipped('user_auth.valid'));
        throw new Error('the JWKS could not be served');
      }),
    ).rejects.toThrow('the JWKS could not be served');
    expect(seen).toEqual([
      expect.objectContaining({
        phase: 'error',
        kind: 'run',
        done: 1,
        skipped: 1,
        error: 'the JWKS could not be served',
      }),
    ]);
    expect(slot.last?.passed).toBe(2);
  });

  it('an event that cannot be sent never stops the run', () => {
    const broken = {
      emit: () => {
        throw new Error('the host went away');
      },
    } as unknown as EventHub;
    const base = { run_id: 'r', kind: 'run' as const, total: 1, jwks_url: null, bank_auth_url: null };
    expect(() => emitProgress(broken, { ...base, phase: 'started', done: 0 }, [])).not.toThrow();
  });
});
