// @vitest-environment jsdom
/**
 * The Scenarios page while a run plays a notification step on the service's ladder (issue 27
 * item 4): the step's delivery shows as it goes (which notification, attempt n of 10, the next
 * attempt's time) from the run's `sandbox.attempted` events, instead of nothing; a delivery of
 * the sandbox's own is not taken for the run's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { SCENARIO_COUNTERPARTY_GUID } from '../../../../electron/contract/schemas/delivery';
import type { ScenarioReport } from '../../../../electron/contract/schemas/scenario';
import { ScenariosPage } from '../../../../renderer/features/scenarios/scenarios-page';
import { useScenarioFolder } from '../../../../renderer/data/scenarios';
import { contractApi } from '../../support/contract-api';
import { renderWithClient } from '../../support/render';
import { attempt, delivery } from '../sandbox/fake-sandbox';

afterEach(() => cleanup());

const REPORT: ScenarioReport = {
  scenario: 'ladder',
  passed: 1,
  failed: 0,
  skipped: 0,
  expected_failures: 0,
  now_passing: [],
  started_at: '2025-01-01T12:00:00.000Z',
  duration_ms: 4200,
  cases: [
    {
      id: 'pay-in',
      kind: 'notification',
      title: 'pay-in on the ladder',
      status: 'passed',
      detail: 'delivered',
      failed_check: null,
      expected_failure: null,
      duration_ms: 4200,
    },
  ],
};

describe('ScenariosPage: a run’s progress', () => {
  it('shows the notification step’s attempt n of 10 and the next attempt as the run goes', async () => {
    useScenarioFolder.setState({ folder: '/repo/scenarios' });
    let finish: (r: ScenarioReport) => void = () => undefined;
    const scenario = {
      list: vi.fn(async () => ({
        folder: '/repo/scenarios',
        files: [{ file: 'ladder.json', name: 'ladder', description: null, steps: 1, error: null }],
      })),
      run: vi.fn(() => new Promise<ScenarioReport>((resolve) => (finish = resolve))),
    };
    const { api, emit } = contractApi({ scenario });
    renderWithClient(<ScenariosPage />, api);
    fireEvent.click(await screen.findByTestId('scenario-run-ladder.json'));
    const progress = await screen.findByTestId('scenario-progress');
    expect(progress.textContent).toContain('ladder.json');
    expect(screen.queryByTestId('scenario-progress-delivery')).toBeNull();

    // The sandbox's own delivery is not the run's.
    act(() => emit('sandbox.attempted', delivery({ attempts: [attempt(1, 0, 500)] })));
    expect(screen.queryByTestId('scenario-progress-delivery')).toBeNull();

    const next = new Date(Date.UTC(2025, 0, 1, 12, 0, 7)).toISOString();
    act(() =>
      emit(
        'sandbox.attempted',
        delivery({
          counterparty_guid: SCENARIO_COUNTERPARTY_GUID,
          attempts: [attempt(1, 0, 500), attempt(2, 1, 500), attempt(3, 3, 503)],
          next_at: next,
        }),
      ),
    );
    const words = await screen.findByTestId('scenario-progress-delivery');
    expect(words.textContent).toMatch(/^attempt 3 of 10 · next at \d/);
    expect(progress.textContent).toContain('pay-in');

    act(() => finish(REPORT));
    await screen.findByTestId('scenario-report');
    await waitFor(() => expect(screen.queryByTestId('scenario-progress')).toBeNull());
  });
});
