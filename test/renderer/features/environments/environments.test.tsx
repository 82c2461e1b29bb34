// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { useAppLiveUpdates } from '../../../../renderer/app/live-updates';
import { EnvSwitcher } from '../../../../renderer/features/environments/env-switcher';
import { EnvironmentsPage } from '../../../../renderer/features/environments/environments-page';
import { resetEnvironmentsStore } from '../../../../renderer/features/environments/environments-store';
import { ExpiryPill } from '../../../../renderer/features/keys/expiry-pill';
import { renderWithClient } from '../../support/render';
import { GUID, fakeConsole, keyInfo, realEnv, sandboxEnv } from '../../support/fake-console';

beforeEach(() => resetEnvironmentsStore());
afterEach(() => cleanup());

function LiveUpdates() {
  useAppLiveUpdates();
  return null;
}

function renderHeader(fake: ReturnType<typeof fakeConsole>) {
  renderWithClient(
    <>
      <LiveUpdates />
      <EnvSwitcher />
      <ExpiryPill />
    </>,
    fake.api,
  );
  return fake;
}

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('Header: environment switcher', () => {
  it('lists the environments, switches with env.activate, and follows env.changed', async () => {
    const fake = renderHeader(fakeConsole({ environments: [sandboxEnv(), realEnv()] }));
    const select = (await screen.findByTestId('env-select')) as HTMLSelectElement;
    expect(select.value).toBe('sandbox');
    expect([...select.options].map((o) => o.textContent)).toEqual(['Sandbox', 'Bank UAT (real)']);
    expect(screen.getByTestId('environment').getAttribute('data-kind')).toBe('sandbox');
    fireEvent.change(select, { target: { value: 'env-test' } });
    await waitFor(() => expect(fake.env.activate).toHaveBeenCalledWith({ id: 'env-test' }));
    await waitFor(() => expect(screen.getByTestId('environment').getAttribute('data-kind')).toBe('real'));
    act(() => fake.emit('env.changed', { active_id: 'sandbox', environments: [sandboxEnv(), realEnv()] }));
    await waitFor(() =>
      expect((screen.getByTestId('env-select') as HTMLSelectElement).value).toBe('sandbox'),
    );
  });
});

describe('Header: key expiry pill', () => {
  it('warns when the active key expires within 30 days, and links to the Keys page', async () => {
    renderHeader(fakeConsole({ keys: [keyInfo('k1', { expires: '2025-07-01', expires_in_days: 12 })] }));
    const pill = await screen.findByTestId('key-expiry-pill');
    expect(pill.getAttribute('data-level')).toBe('soon');
    expect(pill.getAttribute('href')).toBe('#/keys');
    expect(pill.textContent).toContain('Key k1 expires in 12 days');
  });

  it('is red once the key has expired', async () => {
    renderHeader(fakeConsole({ keys: [keyInfo('k1', { expires: '2025-05-01', expires_in_days: -2 })] }));
    const pill = await screen.findByTestId('key-expiry-pill');
    expect(pill.getAttribute('data-level')).toBe('expired');
    expect(pill.className).toContain('expiry-pill-expired');
    expect(pill.textContent).toContain('Key k1 expired 2 days ago');
  });

  it("watches the environment's key even when it is not marked active, and ignores others", async () => {
    const fake = renderHeader(
      fakeConsole({
        keys: [
          keyInfo('k-far', { expires_in_days: 200, expires: '2026-01-01' }),
          keyInfo('k-next', { status: 'next', expires_in_days: 5, expires: '2025-06-06' }),
          keyInfo('k-retired', { status: 'retired', expires_in_days: -40, expires: '2025-04-01' }),
        ],
        environments: [sandboxEnv({ active_kid: 'k-next', counterparty_guid: GUID })],
      }),
    );
    const pill = await screen.findByTestId('key-expiry-pill');
    expect(pill.getAttribute('data-kid')).toBe('k-next');
    // keys.changed replaces the list: the key is rotated away, the pill goes.
    act(() => fake.emit('keys.changed', [keyInfo('k-far', { expires_in_days: 200, expires: '2026-01-01' })]));
    await waitFor(() => expect(screen.queryByTestId('key-expiry-pill')).toBeNull());
  });

  it('shows nothing when every watched key has more than 30 days', async () => {
    const fake = renderHeader(
      fakeConsole({ keys: [keyInfo('k1', { expires_in_days: 31, expires: '2025-07-02' })] }),
    );
    await waitFor(() => expect(fake.keys.list).toHaveBeenCalled());
    await screen.findByTestId('env-select');
    expect(screen.queryByTestId('key-expiry-pill')).toBeNull();
  });
});

describe('EnvironmentsPage', () => {
  async function renderPage(
    fake = fakeConsole({ environments: [sandboxEnv(), realEnv()], keys: [keyInfo('k1')] }),
  ) {
    renderWithClient(<EnvironmentsPage />, fake.api);
    await waitFor(() =>
      expect(screen.getByTestId('environments-page').getAttribute('data-state')).toBe('ready'),
    );
    return fake;
  }

  it('cuts long cells with an ellipsis and keeps the whole text in their title', async () => {
    const long = 'a-very-long-kid-0123456789-0123456789';
    await renderPage(
      fakeConsole({
        environments: [
          realEnv({
            active_kid: long,
            default_obj: 'DE89370400440532013000',
            default_sub: 'ops@bank.example',
          }),
        ],
      }),
    );
    const row = screen.getByTestId('env-row-env-test');
    expect(row.querySelector(`code[title="${long}"]`)?.textContent).toBe(long);
    expect(row.querySelector('.env-defaults')?.getAttribute('title')).toBe(
      'obj DE89370400440532013000 / sub ops@bank.example',
    );
    expect(row.querySelector('.env-jwks')?.getAttribute('title')).toBe(
      'https://dets.example.com/api/v1/.well-known/jwks.json',
    );
    expect(row.querySelector('td[title="https://dets.example.com"]')).not.toBeNull();
  });

  it('adds a real environment, checking fields while typing and the required ones on save', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('env-add'));
    type('env-base-url', 'ftp://svc');
    expect(screen.getByTestId('env-base-url-error').textContent).toContain('http(s) URL');
    type('env-base-url', 'https://dets.bank-test.example');
    expect(screen.queryByTestId('env-base-url-error')).toBeNull();
    expect((screen.getByTestId('env-service-jwks-url') as HTMLInputElement).placeholder).toBe(
      'https://dets.bank-test.example/api/v1/.well-known/jwks.json',
    );
    type('env-counterparty-guid', 'nope');
    expect(screen.getByTestId('env-counterparty-guid-error').textContent).toContain('must be a GUID');
    type('env-counterparty-guid', GUID);
    fireEvent.click(screen.getByTestId('env-save'));
    expect(screen.getByTestId('env-name-error').textContent).toContain('required');
    expect(fake.env.save).not.toHaveBeenCalled();
    type('env-name', 'Bank test');
    // The key list is loaded on its own: choose once the key is offered.
    await waitFor(() =>
      expect(screen.getByTestId('env-active-kid').textContent).toContain('k1 · RS256 · active'),
    );
    fireEvent.change(screen.getByTestId('env-active-kid'), { target: { value: 'k1' } });
    type('env-default-obj', 'DE89370400440532013000');
    fireEvent.click(screen.getByTestId('env-save'));
    await waitFor(() =>
      expect(fake.env.save).toHaveBeenCalledWith({
        name: 'Bank test',
        base_url: 'https://dets.bank-test.example',
        counterparty_guid: GUID,
        active_kid: 'k1',
        default_obj: 'DE89370400440532013000',
      }),
    );
    await waitFor(() => expect(screen.queryByTestId('env-dialog')).toBeNull());
  });

  it("shows the core's BAD_ARGUMENT refusal under the field it names", async () => {
    const fake = fakeConsole({ environments: [sandboxEnv(), realEnv()] });
    fake.env.save.mockRejectedValueOnce(
      new ConsoleError('BAD_ARGUMENT', 'env.save: service_jwks_url: is not reachable from here', {
        field: 'service_jwks_url',
        issues: [{ path: ['service_jwks_url'], message: 'is not reachable from here' }],
      }),
    );
    await renderPage(fake);
    fireEvent.click(within(screen.getByTestId('env-row-env-test')).getByTestId('env-edit'));
    type('env-service-jwks-url', 'https://elsewhere.example/jwks.json');
    fireEvent.click(screen.getByTestId('env-save'));
    expect((await screen.findByTestId('env-service-jwks-url-error')).textContent).toBe(
      'is not reachable from here',
    );
    expect(fake.env.save).toHaveBeenCalledWith({
      id: 'env-test',
      service_jwks_url: 'https://elsewhere.example/jwks.json',
    });
  });

  it("edits only the sandbox's per-profile fields, and sends only what changed (emptied: null)", async () => {
    const fake = await renderPage(
      fakeConsole({ environments: [sandboxEnv({ default_sub: 'ops@bank.example' })], keys: [keyInfo('k1')] }),
    );
    const row = screen.getByTestId('env-row-sandbox');
    expect(within(row).queryByTestId('env-remove')).toBeNull();
    fireEvent.click(within(row).getByTestId('env-edit'));
    expect((screen.getByTestId('env-name') as HTMLInputElement).readOnly).toBe(true);
    expect((screen.getByTestId('env-base-url') as HTMLInputElement).readOnly).toBe(true);
    expect((screen.getByTestId('env-service-jwks-url') as HTMLInputElement).readOnly).toBe(true);
    type('env-default-obj', '+4915112345678');
    type('env-default-sub', '');
    fireEvent.click(screen.getByTestId('env-save'));
    await waitFor(() =>
      expect(fake.env.save).toHaveBeenCalledWith({
        id: 'sandbox',
        default_obj: '+4915112345678',
        default_sub: null,
      }),
    );
  });

  it('removes a real environment after a confirmation, and switches with Use', async () => {
    const fake = await renderPage();
    fireEvent.click(within(screen.getByTestId('env-row-env-test')).getByTestId('env-activate'));
    await waitFor(() => expect(fake.env.activate).toHaveBeenCalledWith({ id: 'env-test' }));
    fireEvent.click(within(screen.getByTestId('env-row-env-test')).getByTestId('env-remove'));
    expect(screen.getByTestId('env-remove-dialog').textContent).toContain('Keys stay in the vault');
    fireEvent.click(screen.getByTestId('env-remove-confirm'));
    await waitFor(() => expect(fake.env.remove).toHaveBeenCalledWith({ id: 'env-test' }));
    await waitFor(() => expect(screen.queryByTestId('env-row-env-test')).toBeNull());
  });
});
