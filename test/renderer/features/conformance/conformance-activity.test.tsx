// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, screen, waitFor } from '@testing-library/react';
import type { EventPayload } from '../../../../electron/contract';
import { ConformancePage } from '../../../../renderer/features/conformance/conformance-page';
import { secondsLeft } from '../../../../renderer/features/conformance/run-activity';
import { renderWithClient } from '../../support/render';
import { contractApi } from '../../support/contract-api';

afterEach(() => {
  vi.useRealTimers();
  cleanup();
});

const JWKS = 'http://127.0.0.1:7303/api/v1/.well-known/jwks.json';

/** The ConsoleApi slice the Conformance page reads, and `emit` to play `conformance.progressed`. */
function fakeConformance() {
  const { api, emit: play } = contractApi({
    conformance: {
      lastReport: vi.fn(async () => null),
      run: vi.fn(() => new Promise(() => undefined)),
      selfCheck: vi.fn(() => new Promise(() => undefined)),
      export: vi.fn(),
    },
  });
  // react-query tells its observers on a zero-delay timer: let it run before looking.
  const emit = async (p: Partial<EventPayload<'conformance.progressed'>>) => {
    await act(async () => {
      play('conformance.progressed', {
        run_id: 'r1',
        kind: 'run',
        phase: 'started',
        total: 40,
        done: 0,
        jwks_url: JWKS,
        bank_auth_url: 'http://127.0.0.1:9100',
        passed: 0,
        failed: 0,
        skipped: 0,
        ...p,
      });
    });
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
  };
  return { api, emit };
}

async function renderPage() {
  const fake = fakeConformance();
  renderWithClient(<ConformancePage />, fake.api);
  await waitFor(() =>
    expect(screen.getByTestId('conformance-page').getAttribute('data-state')).toBe('ready'),
  );
  return fake;
}

const activityEl = () => screen.getByTestId('conformance-activity');

describe('Conformance: what the run is doing and waiting for', () => {
  it('says from the start which JWKS URL the bank must trust and fetch, then each case with its timeout', async () => {
    const { emit } = await renderPage();
    await emit({ phase: 'started' });
    expect(activityEl().getAttribute('data-kind')).toBe('starting');
    expect(activityEl().textContent).toContain(JWKS);
    expect(activityEl().textContent).toContain('must trust this URL');

    await emit({
      phase: 'activity',
      activity: {
        kind: 'case',
        case_id: 'user_auth.valid',
        text: `GET /user_auth with a valid token (kid k1); to verify it the bank must fetch the runner's JWKS at ${JWKS} (not fetched yet in this run)`,
        timeout_ms: 21_000,
        until: null,
        jwks_fetches: 0,
      },
    });
    expect(activityEl().getAttribute('data-case')).toBe('user_auth.valid');
    expect(activityEl().textContent).toContain('Case 1 of 40');
    expect(screen.getByTestId('conformance-timeout').textContent).toBe('This case gives up within 21 s.');
    expect(screen.getByTestId('conformance-fetches').textContent).toContain('has not fetched the JWKS yet');
    expect(screen.queryByTestId('conformance-countdown')).toBeNull();
  });

  it('counts down the rotation wait, and clears the activity when a case finishes', async () => {
    const { emit } = await renderPage();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T12:00:00.000Z'));
    await emit({ phase: 'started' });
    await emit({
      phase: 'activity',
      done: 4,
      activity: {
        kind: 'refresh-wait',
        case_id: 'jwks.rotation',
        text: "/user_auth answered 401 to the new key's token: waiting 11 s (a bank may rate-limit JWKS refreshes for unknown kids), then sending the token again",
        timeout_ms: 16_000,
        until: '2026-01-01T12:00:11.000Z',
        jwks_fetches: 1,
      },
    });
    expect(activityEl().getAttribute('data-kind')).toBe('refresh-wait');
    expect(activityEl().textContent).toContain('Waiting');
    expect(screen.getByTestId('conformance-countdown').getAttribute('data-left')).toBe('11');
    expect(screen.getByTestId('conformance-fetches').textContent).toContain(
      'fetched the JWKS 1 time in this run',
    );

    await emit({
      phase: 'case',
      done: 5,
      case: {
        id: 'jwks.rotation',
        title: 'rotation',
        status: 'passed',
        detail: 'ok',
        route: '/user_auth',
        spec: '4.1',
        duration_ms: 11_020,
        exchanges: [],
      },
      passed: 5,
    });
    expect(screen.queryByTestId('conformance-activity')).toBeNull();
  });

  it('secondsLeft rounds up and never goes below zero', () => {
    const at = Date.parse('2026-01-01T12:00:00.000Z');
    expect(secondsLeft('2026-01-01T12:00:11.000Z', at)).toBe(11);
    expect(secondsLeft('2026-01-01T12:00:11.000Z', at + 10_200)).toBe(1);
    expect(secondsLeft('2026-01-01T12:00:11.000Z', at + 20_000)).toBe(0);
  });
});
