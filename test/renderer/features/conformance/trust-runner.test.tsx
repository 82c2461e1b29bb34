// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { ConformancePage } from '../../../../renderer/features/conformance/conformance-page';
import { useConformanceStore } from '../../../../renderer/features/conformance/conformance-store';
import { renderWithClient } from '../../support/render';
import { contractApi } from '../../support/contract-api';

afterEach(() => {
  cleanup();
  useConformanceStore.getState().setField('jwksPort', '7303');
});

const RUNNER = 'http://127.0.0.1:7303/api/v1/.well-known/jwks.json';
const BEFORE = 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json';

function fakeApi() {
  const handlers = {
    conformance: {
      lastReport: vi.fn(async () => null),
      run: vi.fn(),
      selfCheck: vi.fn(),
      export: vi.fn(),
      trustRunnerJwks: vi.fn(async () => ({
        previous_setting: null,
        previous_url: BEFORE,
        setting: RUNNER,
        url: RUNNER,
      })),
    },
    bank: {
      setServiceJwksUrl: vi.fn(async () => ({
        previous_setting: RUNNER,
        previous_url: RUNNER,
        setting: null,
        url: BEFORE,
      })),
    },
  };
  return { ...handlers, api: contractApi(handlers).api };
}

describe('Conformance: trust the runner in the console’s bank (issue 13 item 6)', () => {
  it('points the bank at the runner’s JWKS for the port typed, says what it replaced, and puts it back', async () => {
    const fake = fakeApi();
    renderWithClient(<ConformancePage />, fake.api);
    await waitFor(() =>
      expect(screen.getByTestId('conformance-page').getAttribute('data-state')).toBe('ready'),
    );
    fireEvent.click(screen.getByTestId('conformance-trust-runner'));
    const result = await screen.findByTestId('conformance-trust-result');
    expect(fake.conformance.trustRunnerJwks).toHaveBeenCalledWith({ jwks_port: 7303 });
    expect(result.textContent).toContain(RUNNER);
    expect(screen.getByTestId('conformance-trust-previous').textContent).toBe(BEFORE);

    fireEvent.click(screen.getByTestId('conformance-trust-undo'));
    const restored = await screen.findByTestId('conformance-trust-restored');
    expect(fake.bank.setServiceJwksUrl).toHaveBeenCalledWith({ url: null });
    expect(restored.textContent).toContain(BEFORE);
    expect(screen.queryByTestId('conformance-trust-result')).toBeNull();
  });

  it('is offered only for a fixed port: port 0 is known only once a run starts', async () => {
    const fake = fakeApi();
    renderWithClient(<ConformancePage />, fake.api);
    fireEvent.change(screen.getByTestId('conformance-jwks-port'), { target: { value: '0' } });
    expect((screen.getByTestId('conformance-trust-runner') as HTMLButtonElement).disabled).toBe(true);
  });
});
