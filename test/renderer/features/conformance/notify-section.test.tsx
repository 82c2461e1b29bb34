// @vitest-environment jsdom
/**
 * The Conformance page's Notifications section (issue 27 item 4): the form checked as the
 * contract checks it (each message under its field, nothing sent), the run sent as
 * `conformance.runNotify`, its cases live as they finish, each notify case naming the fault it
 * catches (the contract's words, as docs/conformance.md's), expected failures shown as such, and
 * the JUnit export of the run; the form's values whole on hover (issue 26 item 6).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { EventPayload } from '../../../../electron/contract';
import { notifyCaseText } from '../../../../electron/contract/notify-cases';
import type { CaseResult, ConformanceReport } from '../../../../electron/contract/schemas/conformance';
import { ConformancePage } from '../../../../renderer/features/conformance/conformance-page';
import { useConformanceStore } from '../../../../renderer/features/conformance/conformance-store';
import { renderWithClient } from '../../support/render';
import { contractApi } from '../../support/contract-api';

const NOTIFY = 'http://127.0.0.1:9300';

afterEach(() => {
  cleanup();
  const s = useConformanceStore.getState();
  for (const f of ['notifyUrl', 'probeUrl', 'expectedFailures', 'bankAuthUrl', 'obj', 'sub'] as const)
    s.setField(f, '');
  s.setField('notifyPrefix', '/api/svc/notify');
});

function notifyCase(id: string, over: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    title: notifyCaseText(id)!.title,
    status: 'passed',
    detail: `2 POST to ${NOTIFY}/api/svc/notify/pay-in answered as expected`,
    route: 'notify',
    spec: '4.3',
    duration_ms: 12,
    exchanges: [],
    ...over,
  };
}

function report(cases: CaseResult[], extra: Partial<ConformanceReport> = {}): ConformanceReport {
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return {
    kind: 'run',
    bank_auth_url: '',
    notify_url: NOTIFY,
    obj: '',
    sub: '',
    jwks_url: '',
    kids: [],
    jwks_fetches: 0,
    started_at: '2026-11-27T10:00:00.000Z',
    finished_at: '2026-11-27T10:00:01.000Z',
    duration_ms: 1000,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    cases,
    ...extra,
  };
}

function fakeConformance(answer: () => Promise<ConformanceReport>) {
  const runNotify = vi.fn(answer);
  const exportReport = vi.fn(async () => ({ text: '<xml/>', filename: 'c.xml', mime: 'application/xml' }));
  const { api, emit: play } = contractApi({
    conformance: {
      lastReport: vi.fn(async () => null),
      run: vi.fn(),
      runNotify,
      selfCheck: vi.fn(),
      export: exportReport,
    },
  });
  const emit = async (p: Partial<EventPayload<'conformance.progressed'>>) => {
    await act(async () => {
      play('conformance.progressed', {
        run_id: 'n1',
        kind: 'run',
        phase: 'started',
        total: 10,
        done: 0,
        jwks_url: null,
        bank_auth_url: null,
        notify_url: NOTIFY,
        passed: 0,
        failed: 0,
        skipped: 0,
        ...p,
      });
    });
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
  };
  return { api, emit, runNotify, exportReport };
}

async function renderPage(answer: () => Promise<ConformanceReport> = () => new Promise(() => undefined)) {
  const fake = fakeConformance(answer);
  renderWithClient(<ConformancePage />, fake.api);
  await waitFor(() =>
    expect(screen.getByTestId('conformance-page').getAttribute('data-state')).toBe('ready'),
  );
  return fake;
}

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('Conformance: the Notifications section', () => {
  it('refuses what the contract would, naming the field, and sends nothing', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('conformance-notify-run'));
    expect((await screen.findByTestId('cf-notifyUrl-error')).textContent).toMatch(/Required/);

    type('conformance-notify-url', 'ftp://bank.example');
    type('conformance-notify-prefix', 'api/svc/notify/');
    type('conformance-probe-url', 'http://u:p@127.0.0.1:8080/applied');
    type('conformance-expected-failures', '["notify.repeat"]');
    fireEvent.click(screen.getByTestId('conformance-notify-run'));
    expect(screen.getByTestId('cf-notifyUrl-error').textContent).toBe('Must be an http(s) URL');
    expect(screen.getByTestId('cf-notifyPrefix-error').textContent).toContain('a path like /api/svc/notify');
    expect(screen.getByTestId('cf-probeUrl-error').textContent).toBe('Must not carry credentials');
    expect(screen.getByTestId('cf-expectedFailures-error').textContent).toContain('JSON object');

    type('conformance-notify-url', NOTIFY);
    type('conformance-notify-prefix', '/api/dcm/notify');
    type('conformance-probe-url', '');
    type('conformance-expected-failures', '{"notify.repeat": ""}');
    fireEvent.click(screen.getByTestId('conformance-notify-run'));
    expect(screen.getByTestId('cf-expectedFailures-error').textContent).toContain(
      'notify.repeat: each listed case needs a reason',
    );
    expect(fake.runNotify).not.toHaveBeenCalled();
    // The probe is explained where it is asked for.
    expect(screen.getByTestId('conformance-probe-why').textContent).toContain('applied exactly once');
  });

  it('runs the cases as typed, shows each live, then the result with the fault each catches and the expected failures', async () => {
    let finish: (r: ConformanceReport) => void = () => undefined;
    const fake = await renderPage(() => new Promise((resolve) => (finish = resolve)));
    type('conformance-notify-url', `${NOTIFY}/`);
    type('conformance-probe-url', 'http://127.0.0.1:9301/applied');
    type('conformance-expected-failures', '{"notify.repeat.upper-case": "BANK-123"}');
    // Long values stay whole on hover, however narrow the column (issue 26 item 6).
    expect(screen.getByTestId('conformance-probe-url').getAttribute('title')).toBe(
      'http://127.0.0.1:9301/applied',
    );
    fireEvent.click(screen.getByTestId('conformance-notify-run'));
    await waitFor(() =>
      expect(fake.runNotify).toHaveBeenCalledWith({
        notify_url: NOTIFY,
        prefix: '/api/svc/notify',
        probe_url: 'http://127.0.0.1:9301/applied',
        expected_failures: { 'notify.repeat.upper-case': 'BANK-123' },
      }),
    );

    await emit(fake, { phase: 'started' });
    expect(screen.getByTestId('conformance-activity').textContent).toContain(
      `posting notifications to ${NOTIFY}`,
    );
    await emit(fake, {
      phase: 'activity',
      activity: {
        kind: 'case',
        case_id: 'notify.concurrent',
        text: `sending five copies at once to ${NOTIFY}/api/svc/notify/pay-in`,
        timeout_ms: 30_000,
        until: null,
        jwks_fetches: 0,
      },
    });
    const activity = screen.getByTestId('conformance-activity');
    expect(activity.getAttribute('data-case')).toBe('notify.concurrent');
    expect(activity.textContent).toContain('gives up within 30 s');
    // A notification case has no JWKS to fetch: nothing said about one.
    expect(within(activity).queryByTestId('conformance-fetches')).toBeNull();
    await emit(fake, { phase: 'case', done: 1, case: notifyCase('notify.pay-in.valid'), passed: 1 });
    expect(screen.getAllByTestId('conformance-case').map((c) => c.getAttribute('data-case-id'))).toEqual([
      'notify.pay-in.valid',
    ]);
    expect(screen.getByTestId('conformance-progress').getAttribute('data-done')).toBe('1');

    const failed = notifyCase('notify.repeat.upper-case', {
      status: 'failed',
      detail: 'the repeat in upper case: status: expected 200, got 500',
    });
    const broken = notifyCase('notify.concurrent', { status: 'failed', detail: 'copy 2 of 5: status 500' });
    await act(async () =>
      finish(
        report([notifyCase('notify.pay-in.valid'), failed, broken], {
          expected_failures: {
            expected: [{ id: 'notify.repeat.upper-case', reason: 'BANK-123' }],
            unexpected: ['notify.concurrent'],
            now_passing: [],
            not_run: [],
          },
        }),
      ),
    );
    await waitFor(() => expect(screen.getAllByTestId('conformance-case')).toHaveLength(3));
    const rows = screen.getAllByTestId('conformance-case');
    expect(rows[1]!.getAttribute('data-expected')).toBe('true');
    expect(within(rows[1]!).getByTestId('conformance-case-expected').textContent).toBe(
      'expected failure (BANK-123)',
    );
    // Each failed notify case names the fault it catches, in the contract's words.
    expect(within(rows[2]!).getByTestId('conformance-case-fault').textContent).toContain(
      notifyCaseText('notify.concurrent')!.fault,
    );
    expect(within(rows[0]!).queryByTestId('conformance-case-fault')).toBeNull();
    fireEvent.click(within(rows[0]!).getByTestId('conformance-case-toggle'));
    expect(within(rows[0]!).getByTestId('conformance-case-fault').textContent).toContain(
      'a wrong path or prefix',
    );
    // One unexpected failure fails the run; the expected one is listed apart.
    const summary = screen.getByTestId('conformance-summary');
    expect(summary.getAttribute('data-state')).toBe('failed');
    expect(summary.textContent).toContain('1 failed');
    expect(screen.getByTestId('conformance-expected-expected').textContent).toContain(
      'notify.repeat.upper-case',
    );
    expect(screen.getByTestId('conformance-run-panel').textContent).toContain(NOTIFY);

    fireEvent.click(screen.getByTestId('conformance-export-junit'));
    await waitFor(() => expect(fake.exportReport).toHaveBeenCalledWith({ format: 'junit' }));
  });

  it('a run whose only failures were expected is not a failed run', async () => {
    await renderPage(async () =>
      report([notifyCase('notify.repeat', { status: 'failed', detail: 'the repeat: status 409' })], {
        expected_failures: {
          expected: [{ id: 'notify.repeat', reason: 'BANK-7' }],
          unexpected: [],
          now_passing: [],
          not_run: [{ id: 'notify.typo', reason: 'x' }],
        },
      }),
    );
    type('conformance-notify-url', NOTIFY);
    fireEvent.click(screen.getByTestId('conformance-notify-run'));
    const summary = await screen.findByTestId('conformance-summary');
    await waitFor(() => expect(summary.getAttribute('data-state')).toBe('passed'));
    expect(summary.textContent).toContain('No unexpected failure (1 expected)');
    expect(screen.getByTestId('conformance-expected-not-run').textContent).toContain('notify.typo');
  });
});

async function emit(
  fake: { emit: (p: Partial<EventPayload<'conformance.progressed'>>) => Promise<void> },
  p: Partial<EventPayload<'conformance.progressed'>>,
) {
  await fake.emit(p);
}
