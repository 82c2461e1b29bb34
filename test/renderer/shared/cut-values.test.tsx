// @vitest-environment jsdom
/**
 * Issue 26 item 6: "kids and paths with copy buttons and full values on hover". Every page that
 * cuts a kid or a JWKS URL renders it through the one component (shared/cut-value.tsx): the
 * whole value in `title` and a copy button that copies exactly it. The Keys page and the callback
 * detail have their own tests; these cover the Inspector, the Bank page, the Environments table
 * and the Conformance form.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { BankPage } from '../../../renderer/features/bank/bank-page';
import { ConformancePage } from '../../../renderer/features/conformance/conformance-page';
import { useConformanceStore } from '../../../renderer/features/conformance/conformance-store';
import { EnvironmentsPage } from '../../../renderer/features/environments/environments-page';
import { resetEnvironmentsStore } from '../../../renderer/features/environments/environments-store';
import { InspectorPage } from '../../../renderer/features/inspector/inspector-page';
import { resetInspectorStore } from '../../../renderer/features/inspector/inspector-store';
import { renderWithClient, fakeApi, report } from '../support/render';
import { idleConformanceApi } from '../support/idle-conformance';
import { fakeConsole, realEnv } from '../support/fake-console';
import { fakeEventsConsole } from '../support/fake-events';

const writeText = vi.fn(async (_text: string) => undefined);
const initialConformance = useConformanceStore.getState();

beforeEach(() => {
  writeText.mockClear();
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  resetInspectorStore();
  resetEnvironmentsStore();
  useConformanceStore.setState(initialConformance, true);
});
afterEach(() => cleanup());

/** The value is whole in `title`, and its copy button (named for what it copies) copies it. */
async function expectCutAndCopied(scope: HTMLElement, testId: string, what: string, value: string) {
  const shown = within(scope)
    .getAllByTestId(testId)
    .find((el) => el.textContent === value);
  expect(shown, `${testId} showing ${value}`).toBeTruthy();
  expect(shown!.getAttribute('title')).toBe(value);
  fireEvent.click(within(scope).getByRole('button', { name: `Copy ${what} ${value}` }));
  await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(value));
}

describe('cut kids and JWKS URLs keep their whole value and a copy button', () => {
  it('on the Inspector, each kid of the key source used', async () => {
    const url = 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json';
    const kids = ['svc-2026-11-long-kid-0123456789', 'svc-2026-05'];
    const { api } = fakeApi({
      inspect: async () =>
        report([['signature', 'passed']], {
          keys: { source: 'jwks-url', description: `JWKS from ${url}: 2 keys`, kids },
        }),
    });
    renderWithClient(<InspectorPage />, api);
    fireEvent.change(screen.getByTestId('token-input'), {
      target: { value: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' },
    });
    fireEvent.click(screen.getByTestId('key-source-jwks-url'));
    fireEvent.change(screen.getByTestId('key-url-input'), { target: { value: url } });
    const note = await screen.findByTestId('key-kids', {}, { timeout: 3000 });
    for (const kid of kids) await expectCutAndCopied(note, 'key-kid', 'kid', kid);
  });

  it('on the Bank page, the service JWKS URL and its kids', async () => {
    const fake = fakeEventsConsole();
    renderWithClient(<BankPage />, fake.api);
    await waitFor(() => expect(screen.getByTestId('bank-page').getAttribute('data-state')).toBe('ready'));
    const status = await fake.api.bank.status();
    const page = screen.getByTestId('bank-page');
    await expectCutAndCopied(page, 'bank-jwks-url', 'JWKS URL', status.service_jwks_url!);
    for (const kid of status.jwks.kids) await expectCutAndCopied(page, 'bank-jwks-kid', 'kid', kid);
  });

  it('in the Environments table, the active kid', async () => {
    const long = 'a-very-long-kid-0123456789-0123456789';
    renderWithClient(
      <EnvironmentsPage />,
      fakeConsole({ environments: [realEnv({ active_kid: long })] }).api,
    );
    const row = await screen.findByTestId('env-row-env-test');
    await expectCutAndCopied(row, 'env-row-kid', 'kid', long);
  });

  it('on the Conformance form, the runner JWKS URL the bank must trust', async () => {
    renderWithClient(<ConformancePage />, idleConformanceApi());
    fireEvent.change(await screen.findByTestId('conformance-jwks-port'), { target: { value: '7399' } });
    const url = 'http://127.0.0.1:7399/api/v1/.well-known/jwks.json';
    await expectCutAndCopied(document.body, 'conformance-jwks-url', 'JWKS URL', url);
  });
});
