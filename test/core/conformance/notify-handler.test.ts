/**
 * `conformance.runNotify` (issue 27 item 4), the Conformance page's Notifications section
 * through the contract's handler: against a real receiver on 127.0.0.1, every `notify.*` case
 * reported live (begun and finished) with the notify URL, the last report kept, expected
 * failures judged both ways, and the JUnit export showing a listed failure as skipped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConformanceProgress } from '../../../electron/contract/schemas/conformance';
import { NOTIFY_CASE_TEXTS } from '../../../electron/contract/notify-cases';
import { conformanceHandlers } from '../../../electron/core/conformance';
import type { CoreDeps } from '../../../electron/core/core-types';
import { EventHub } from '../../../electron/core/event-hub';
import { startReceiver, type Receiver } from './notify-receiver';

const open: Receiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

function handlersWithProgress() {
  const events = new EventHub();
  const progress: ConformanceProgress[] = [];
  events.on('conformance.progressed', (p) => progress.push(p));
  return { handlers: conformanceHandlers({ events } as unknown as CoreDeps), progress };
}

describe('conformance.runNotify', () => {
  it('plays every notify case against a correct receiver, live, with the probe', async () => {
    const receiver = await startReceiver('none');
    open.push(receiver);
    const { handlers, progress } = handlersWithProgress();
    const report = await handlers['conformance.runNotify']({
      notify_url: `${receiver.url}/`,
      probe_url: receiver.probe,
    });
    expect(report.cases.map((c) => c.id)).toEqual(NOTIFY_CASE_TEXTS.map((c) => c.id));
    expect(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
    expect(report).toMatchObject({ kind: 'run', notify_url: receiver.url, bank_auth_url: '', failed: 0 });
    expect(report.expected_failures).toBeUndefined();
    expect(report.cases.find((c) => c.id === 'notify.repeat')!.detail).toContain('applied once');

    expect(progress[0]).toMatchObject({
      phase: 'started',
      done: 0,
      total: NOTIFY_CASE_TEXTS.length,
      notify_url: receiver.url,
      jwks_url: null,
    });
    const begun = progress.filter((p) => p.phase === 'activity').map((p) => p.activity!);
    expect(begun.map((a) => a.case_id)).toEqual(report.cases.map((c) => c.id));
    const concurrent = begun.find((a) => a.case_id === 'notify.concurrent')!;
    // Five copies and the probe, each given up at 5 s at the most.
    expect(concurrent.timeout_ms).toBe(6 * 5000);
    expect(concurrent.text).toContain(`${receiver.url}/api/svc/notify/pay-in`);
    const finished = progress.filter((p) => p.phase === 'case');
    expect(finished.map((p) => p.done)).toEqual(report.cases.map((_, i) => i + 1));
    expect(progress.at(-1)).toMatchObject({ phase: 'finished', done: report.cases.length, failed: 0 });
    expect(await handlers['conformance.lastReport'](undefined)).toEqual(report);
  });

  it('judges expected failures both ways, and the JUnit export skips the listed ones saying why', async () => {
    const receiver = await startReceiver('case-sensitive');
    open.push(receiver);
    const { handlers } = handlersWithProgress();
    const report = await handlers['conformance.runNotify']({
      notify_url: receiver.url,
      prefix: '/api/svc/notify',
      expected_failures: {
        'notify.repeat.upper-case': 'BANK-123: ids compared as typed',
        'notify.repeat': 'BANK-9: fixed last week',
        'notify.nope': 'a typo',
      },
    });
    expect(report.failed).toBe(1);
    expect(report.expected_failures).toEqual({
      expected: [{ id: 'notify.repeat.upper-case', reason: 'BANK-123: ids compared as typed' }],
      unexpected: [],
      now_passing: [{ id: 'notify.repeat', reason: 'BANK-9: fixed last week' }],
      not_run: [{ id: 'notify.nope', reason: 'a typo' }],
    });
    const junit = (await handlers['conformance.export']({ format: 'junit' })).text;
    expect(junit).toContain('failures="0"');
    expect(junit).toMatch(
      /<testcase name="notify\.repeat\.upper-case"[^>]*>\s*<skipped message="expected failure \(BANK-123: ids compared as typed\): /,
    );
    // JUnit test case names are the case ids, never a URL (DESIGN.md).
    const names = [...junit.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(NOTIFY_CASE_TEXTS.map((c) => c.id));
  });

  it('a receiver that is not there fails the cases, naming why, and the run still ends', async () => {
    const { handlers, progress } = handlersWithProgress();
    const report = await handlers['conformance.runNotify']({ notify_url: 'http://127.0.0.1:9' });
    expect(report.failed).toBe(NOTIFY_CASE_TEXTS.length);
    expect(report.cases[0]!.detail).toMatch(/reachable/);
    expect(progress.at(-1)).toMatchObject({ phase: 'finished' });
  });
});
