// @vitest-environment jsdom
/**
 * Issue 26 item 3, end to end on the page: the walkthrough's customer becomes the active
 * environment's default obj/sub (core: env-defaults.ts), and the Conformance form starts from
 * them instead of empty; what the engineer types wins, even an emptied field.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { ConformancePage } from '../../../../renderer/features/conformance/conformance-page';
import { useConformanceStore } from '../../../../renderer/features/conformance/conformance-store';
import { renderWithClient } from '../../support/render';
import { idleConformanceApi } from '../../support/idle-conformance';
import { fakeConsole, sandboxEnv } from '../../support/fake-console';

const initial = useConformanceStore.getState();
beforeEach(() => useConformanceStore.setState(initial, true));
afterEach(() => cleanup());

function renderPage() {
  const fake = fakeConsole({
    environments: [sandboxEnv({ default_obj: 'DE89370400440532013000', default_sub: 'ops@bank.example' })],
  });
  renderWithClient(<ConformancePage />, idleConformanceApi(fake));
}

const input = (id: string) => screen.getByTestId(id) as HTMLInputElement;

describe('the Conformance form and the environment’s defaults', () => {
  it('starts from the active environment’s default obj and sub', async () => {
    renderPage();
    await waitFor(() => expect(input('conformance-obj').value).toBe('DE89370400440532013000'));
    expect(input('conformance-sub').value).toBe('ops@bank.example');
  });

  it('keeps what the engineer typed, an emptied field included', async () => {
    renderPage();
    await waitFor(() => expect(input('conformance-obj').value).toBe('DE89370400440532013000'));
    fireEvent.change(input('conformance-obj'), { target: { value: 'DE02100100109307118603' } });
    expect(input('conformance-obj').value).toBe('DE02100100109307118603');
    fireEvent.change(input('conformance-sub'), { target: { value: '' } });
    expect(input('conformance-sub').value).toBe('');
  });
});
