// @vitest-environment jsdom
import { desktopClient } from '../../../../renderer/api/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { useAppLiveUpdates } from '../../../../renderer/app/live-updates';
import { BankPage } from '../../../../renderer/features/bank/bank-page';
import { BehavioursPill } from '../../../../renderer/features/bank/behaviours-pill';
import { renderWithClient } from '../../support/render';
import { BANK_URL, bankStatus, fakeEventsConsole } from '../../support/fake-events';

const SECRET = 'very-secret-user-key-0123456789';
const CUSTOMER = {
  obj: 'DE89370400440532013000',
  external_id: 'cust-1',
  phone: '+4915112345678',
  key: SECRET,
};

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:x');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function LiveUpdates() {
  useAppLiveUpdates();
  return null;
}

async function renderPage(fake = fakeEventsConsole({ customers: [CUSTOMER] }), mode?: 'browser') {
  const client = mode ? { ...desktopClient(fake.api), mode } : fake.api;
  renderWithClient(
    <>
      <LiveUpdates />
      <BehavioursPill />
      <BankPage />
    </>,
    client,
  );
  await waitFor(() => expect(screen.getByTestId('bank-page').getAttribute('data-state')).toBe('ready'));
  return fake;
}

describe('BankPage', () => {
  it('shows the listener URL, the URLs for the service with the notification prefix, and the JWKS state', async () => {
    await renderPage();
    expect(screen.getByTestId('bank-url').textContent).toBe(BANK_URL);
    expect(screen.getByTestId('bank-url-user-auth').textContent).toBe(`${BANK_URL}/user_auth`);
    expect(screen.getByTestId('bank-url-pay-in').textContent).toBe(`${BANK_URL}/api/svc/notify/pay-in`);
    expect(screen.getByTestId('bank-jwks-state').textContent).toBe('fresh');
    expect(screen.getByTestId('bank-jwks-kids').textContent).toContain('svc-1');
  });

  it('names the service JWKS keys left out and the duplicate kids', async () => {
    const status = bankStatus();
    await renderPage(
      fakeEventsConsole({
        customers: [CUSTOMER],
        status: {
          ...status,
          jwks: {
            ...status.jwks,
            rejected: [
              { kid: 'svc-small', reason: 'the RSA modulus has 1024 bits; at least 2048 are required' },
            ],
            duplicates: ['svc-1'],
          },
        },
      }),
    );
    expect(screen.getByTestId('bank-jwks-rejected').textContent).toBe(
      'svc-small: the RSA modulus has 1024 bits; at least 2048 are required',
    );
    expect(screen.getByTestId('bank-jwks-duplicates').textContent).toContain('svc-1');
  });

  it('changes the notification prefix (presets or typed), the URLs follow, a bad one is refused with its reason', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('bank-notify-prefix-dcm'));
    await waitFor(() =>
      expect(screen.getByTestId('bank-url-pay-in').textContent).toBe(`${BANK_URL}/api/dcm/notify/pay-in`),
    );
    expect(fake.bank.setNotifyPrefix).toHaveBeenCalledWith({ prefix: '/api/dcm/notify' });
    const input = screen.getByTestId('bank-notify-prefix-input') as HTMLInputElement;
    expect(input.value).toBe('/api/dcm/notify');
    fireEvent.change(input, { target: { value: 'no-slash' } });
    fireEvent.click(screen.getByTestId('bank-notify-prefix-save'));
    expect(await screen.findByText(/must be an absolute path/)).toBeTruthy();
    expect(screen.getByTestId('bank-url-transfer').textContent).toBe(`${BANK_URL}/api/dcm/notify/transfer`);
    fireEvent.change(input, { target: { value: '/hooks/dets' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() =>
      expect(screen.getByTestId('bank-url-transfer').textContent).toBe(`${BANK_URL}/hooks/dets/transfer`),
    );
  });

  it('never renders a customer key: only its length', async () => {
    await renderPage();
    const row = await screen.findByTestId(`customer-${CUSTOMER.obj}`);
    expect(within(row).getByTestId('customer-key-hint').textContent).toBe(`${SECRET.length} characters`);
    fireEvent.click(within(row).getByTestId('customer-edit'));
    await screen.findByTestId('customer-dialog');
    expect((screen.getByTestId('customer-key') as HTMLInputElement).value).toBe('');
    expect(document.body.innerHTML).not.toContain(SECRET);
  });

  it('validates the customer form on entry: required fields, external_id ≤ 500 symbols', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('customer-add'));
    await screen.findByTestId('customer-dialog');
    fireEvent.click(screen.getByTestId('customer-save'));
    expect(screen.getByTestId('customer-obj-error')).toBeTruthy();
    expect(screen.getByTestId('customer-external-id-error')).toBeTruthy();
    expect(screen.getByTestId('customer-phone-error')).toBeTruthy();
    expect(screen.getByTestId('customer-key-error')).toBeTruthy();
    // 500 emoji are 1000 UTF-16 units but 500 symbols: allowed; 501 are not.
    fireEvent.change(screen.getByTestId('customer-external-id'), { target: { value: '😀'.repeat(501) } });
    expect(screen.getByTestId('customer-external-id-error').textContent).toContain('501 symbols');
    fireEvent.change(screen.getByTestId('customer-external-id'), { target: { value: '😀'.repeat(500) } });
    expect(screen.queryByTestId('customer-external-id-error')).toBeNull();
    expect(fake.bank.saveCustomer).not.toHaveBeenCalled();
    fireEvent.change(screen.getByTestId('customer-obj'), {
      target: { value: 'PL61109010140000071219812874' },
    });
    fireEvent.change(screen.getByTestId('customer-phone'), { target: { value: '+48500100200' } });
    fireEvent.change(screen.getByTestId('customer-key'), { target: { value: 'k2' } });
    fireEvent.click(screen.getByTestId('customer-save'));
    await waitFor(() =>
      expect(fake.bank.saveCustomer).toHaveBeenCalledWith({
        obj: 'PL61109010140000071219812874',
        external_id: '😀'.repeat(500),
        phone: '+48500100200',
        key: 'k2',
      }),
    );
    await waitFor(() => expect(screen.queryByTestId('customer-dialog')).toBeNull());
  });

  it("shows the core's refusal under its field", async () => {
    const fake = await renderPage();
    fake.bank.saveCustomer.mockRejectedValueOnce(
      new ConsoleError('BAD_ARGUMENT', 'bank.saveCustomer: phone: not a phone number', { field: 'phone' }),
    );
    fireEvent.click(screen.getByTestId('customer-add'));
    await screen.findByTestId('customer-dialog');
    fireEvent.change(screen.getByTestId('customer-obj'), { target: { value: 'X1' } });
    fireEvent.change(screen.getByTestId('customer-external-id'), { target: { value: 'e' } });
    fireEvent.change(screen.getByTestId('customer-phone'), { target: { value: 'abc' } });
    fireEvent.change(screen.getByTestId('customer-key'), { target: { value: 'k' } });
    fireEvent.click(screen.getByTestId('customer-save'));
    await waitFor(() =>
      expect(screen.getByTestId('customer-phone-error').textContent).toContain('not a phone number'),
    );
  });

  it('imports a pasted --users file and exports one as a download', async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('customers-import'));
    const text = JSON.stringify([{ ...CUSTOMER, obj: 'NEW1' }]);
    fireEvent.change(await screen.findByTestId('customers-import-text'), { target: { value: text } });
    fireEvent.click(screen.getByTestId('customers-import-submit'));
    await waitFor(() => expect(fake.bank.importCustomers).toHaveBeenCalledWith({ text }));
    await screen.findByTestId('customer-NEW1');
    fireEvent.click(screen.getByTestId('customers-export'));
    fireEvent.click(await screen.findByTestId('customers-export-plain'));
    await waitFor(() => expect(fake.bank.exportCustomers).toHaveBeenCalled());
    await waitFor(() => expect(click).toHaveBeenCalled());
  });

  it('exports with secret keys only after the confirmation, as a one-time download link', async () => {
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.getAttribute('href') ?? '');
    });
    const fake = await renderPage(undefined, 'browser');
    fireEvent.click(screen.getByTestId('customers-export'));
    const withKeys = (await screen.findByTestId('customers-export-with-keys')) as HTMLButtonElement;
    expect(withKeys.disabled).toBe(true);
    fireEvent.click(screen.getByTestId('customers-export-confirm'));
    expect(withKeys.disabled).toBe(false);
    fireEvent.click(withKeys);
    await waitFor(() =>
      expect(fake.bank.exportCustomersWithKeys).toHaveBeenCalledWith({ confirm: 'include secret keys' }),
    );
    await waitFor(() => expect(clicked).toEqual(['/api/download/ticket-1']));
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('sets behaviours; an active one shows the banner and the header pill (also from bank.changed)', async () => {
    const fake = await renderPage();
    expect(screen.queryByTestId('behaviours-banner')).toBeNull();
    fireEvent.change(screen.getByTestId('behaviour-user_auth-delay'), { target: { value: '1500' } });
    fireEvent.click(screen.getByTestId('behaviours-apply'));
    await waitFor(() =>
      expect(fake.bank.setBehaviours).toHaveBeenCalledWith({ user_auth: { delay_ms: 1500 } }),
    );
    await screen.findByTestId('behaviours-banner');
    expect(screen.getByTestId('behaviours-pill')).toBeTruthy();
    act(() => fake.emit('bank.changed', bankStatus({ behaviours: {} })));
    await waitFor(() => expect(screen.queryByTestId('behaviours-banner')).toBeNull());
    expect(screen.queryByTestId('behaviours-pill')).toBeNull();
  });

  it('turns forward mode on with a valid URL and off again', async () => {
    const fake = await renderPage();
    const url = screen.getByTestId('forward-url');
    fireEvent.change(url, { target: { value: 'ftp://x' } });
    expect(screen.getByTestId('forward-url-error')).toBeTruthy();
    expect((screen.getByTestId('forward-on') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(url, { target: { value: 'http://127.0.0.1:8080' } });
    fireEvent.click(screen.getByTestId('forward-on'));
    await waitFor(() => expect(fake.bank.setForward).toHaveBeenCalledWith({ url: 'http://127.0.0.1:8080' }));
    await waitFor(() => expect(screen.getByTestId('forward-state').textContent).toBe('on'));
    fireEvent.click(screen.getByTestId('forward-off'));
    await waitFor(() => expect(fake.bank.setForward).toHaveBeenLastCalledWith({ url: null }));
  });
});
