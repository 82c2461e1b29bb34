// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { SandboxPage } from '../../../../renderer/features/sandbox/sandbox-page';
import { resetSandboxStore } from '../../../../renderer/features/sandbox/sandbox-store';
import { renderWithClient } from '../../support/render';
import {
  GUID,
  JWK_GUID,
  PUBLIC_JWK,
  SANDBOX_URL,
  counterparty,
  fakeSandboxApi,
  status,
  step,
  trace,
} from './fake-sandbox';
import { keyInfo, sandboxEnv } from '../../support/fake-console';

beforeEach(() => resetSandboxStore());
afterEach(() => cleanup());

async function renderPage(fake = fakeSandboxApi()) {
  renderWithClient(<SandboxPage />, fake.api);
  await waitFor(() => expect(screen.getByTestId('sandbox-page').getAttribute('data-state')).toBe('ready'));
  return fake;
}

const type = (testId: string, value: string, root: HTMLElement = document.body) =>
  fireEvent.change(within(root).getByTestId(testId), { target: { value } });

describe('SandboxPage: the service', () => {
  it('shows the base URL and the JWKS URL with copy buttons, and the published keys', async () => {
    await renderPage();
    expect(screen.getByTestId('sandbox-url').textContent).toBe(SANDBOX_URL);
    expect(screen.getByTestId('sandbox-jwks-url').textContent).toBe(
      `${SANDBOX_URL}/api/v1/.well-known/jwks.json`,
    );
    expect(screen.getByTestId('copy-sandbox-url').tagName).toBe('BUTTON');
    expect(screen.getByTestId('copy-jwks-url').tagName).toBe('BUTTON');
    const key = screen.getByTestId('sandbox-key-sandbox-key-1');
    expect(key.getAttribute('data-status')).toBe('active');
    expect(key.textContent).toContain('active');
    expect(screen.queryByTestId('key-memory-banner')).toBeNull();
  });

  it('warns clearly when the signing key lives in memory only', async () => {
    await renderPage(fakeSandboxApi(status({ key_persistence: 'memory' })));
    const banner = screen.getByTestId('key-memory-banner');
    expect(banner.textContent).toContain('No vault yet: a restart publishes a new key');
  });

  it('says when the sandbox does not listen in this process', async () => {
    await renderPage(fakeSandboxApi(status({ url: null })));
    expect(screen.getByTestId('sandbox-not-listening').textContent).toContain('--no-sandbox');
    expect(screen.queryByTestId('copy-sandbox-url')).toBeNull();
  });

  it('rotates the key only after a confirmation that explains what it breaks', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('rotate-key'));
    const dialog = screen.getByTestId('rotate-confirm-dialog');
    expect(dialog.getAttribute('role')).toBe('alertdialog');
    expect(dialog.textContent).toContain('caches the JWKS forever will start failing');
    expect(dialog.textContent).toContain('1 d'); // the grace period from the settings
    expect(document.activeElement).toBe(screen.getByTestId('rotate-confirm'));

    // Escape cancels, without rotating.
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByTestId('rotate-confirm-dialog')).toBeNull();
    expect(fake.sandbox.rotateKey).not.toHaveBeenCalled();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('rotate-key')));

    fireEvent.click(screen.getByTestId('rotate-key'));
    fireEvent.click(screen.getByTestId('rotate-confirm'));
    await screen.findByTestId('sandbox-key-sandbox-key-2');
    expect(fake.sandbox.rotateKey).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('sandbox-key-sandbox-key-1').getAttribute('data-status')).toBe('grace');
    expect(screen.queryByTestId('rotate-confirm-dialog')).toBeNull();
  });

  it('shows a damaged state as an error with its code instead of a blank page', async () => {
    const fake = fakeSandboxApi();
    fake.sandbox.status.mockRejectedValue(
      new ConsoleError('STATE_DAMAGED', '/data/sandbox/state.json is not valid JSON'),
    );
    renderWithClient(<SandboxPage />, fake.api);
    const error = await screen.findByTestId('sandbox-error');
    expect(error.getAttribute('data-code')).toBe('STATE_DAMAGED');
    expect(error.textContent).toContain('state.json is not valid JSON');
  });
});

describe('SandboxPage: onboarding', () => {
  it('sends the pasted JWK and the URLs, then lists the new counterparty with its JWK', async () => {
    const fake = await renderPage();
    expect(screen.getByTestId('counterparties-empty')).toBeTruthy();
    fireEvent.click(screen.getByTestId('onboard-open-empty'));
    type('onboard-jwk', JSON.stringify(PUBLIC_JWK, null, 2));
    type('onboard-bank-auth-url', ' http://127.0.0.1:9100 ');
    fireEvent.click(screen.getByTestId('onboard-submit'));

    const item = await screen.findByTestId(`counterparty-${GUID}`);
    expect(fake.sandbox.onboard).toHaveBeenCalledWith({
      jwk: PUBLIC_JWK,
      bank_auth_url: 'http://127.0.0.1:9100',
    });
    expect(screen.queryByTestId('onboard-form')).toBeNull();
    // The new counterparty opens, with its registered JWK and its URLs.
    const jwk = within(item).getByTestId(`jwk-${JWK_GUID}`);
    expect(jwk.textContent).toContain('bank-key-1');
    expect(jwk.textContent).toContain('onboarding');
    expect((within(item).getByTestId('bank-auth-url-input') as HTMLInputElement).value).toBe(
      'http://127.0.0.1:9100',
    );
  });

  it('checks fields while typing and never sends a private key', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('onboard-open-empty'));
    fireEvent.click(screen.getByTestId('onboard-submit'));
    expect(screen.getByTestId('onboard-jwk-error').textContent).toContain('Paste the public JWK');
    expect(document.activeElement).toBe(screen.getByTestId('onboard-jwk'));

    type('onboard-jwk', JSON.stringify({ ...PUBLIC_JWK, d: 'secret', p: 'x' }));
    expect(screen.getByTestId('onboard-jwk-error').textContent).toMatch(/private key.*d, p/);
    type('onboard-jwk', '{"kty": "RSA",');
    expect(screen.getByTestId('onboard-jwk-error').textContent).toContain('Not JSON');
    type('onboard-jwk', JSON.stringify(PUBLIC_JWK));
    expect(screen.queryByTestId('onboard-jwk-error')).toBeNull();

    type('onboard-counterparty-guid', 'not-a-guid');
    expect(screen.getByTestId('onboard-counterparty-guid-error').textContent).toContain('GUID');
    type('onboard-bank-receiver-url', 'ftp://bank.example');
    expect(screen.getByTestId('onboard-bank-receiver-url-error').textContent).toContain('http(s) URL');
    fireEvent.click(screen.getByTestId('onboard-submit'));
    expect(fake.sandbox.onboard).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(screen.getByTestId('onboard-counterparty-guid'));
  });

  it('shows a refusal from the core under the field it names', async () => {
    const fake = await renderPage();
    fake.sandbox.onboard.mockRejectedValueOnce(
      new ConsoleError('BAD_ARGUMENT', 'jwk: the RSA modulus is 512 bits; at least 2048 are required', {
        field: 'jwk',
      }),
    );
    fireEvent.click(screen.getByTestId('onboard-open-empty'));
    type('onboard-jwk', JSON.stringify(PUBLIC_JWK));
    fireEvent.click(screen.getByTestId('onboard-submit'));
    const error = await screen.findByTestId('onboard-jwk-error');
    expect(error.textContent).toBe('the RSA modulus is 512 bits; at least 2048 are required');
    expect(document.activeElement).toBe(screen.getByTestId('onboard-jwk'));

    fake.sandbox.onboard.mockRejectedValueOnce(
      new ConsoleError('BAD_ARGUMENT', 'sandbox.onboard: jwk_guid: must be a GUID', {
        field: 'jwk_guid',
        issues: [{ path: ['jwk_guid'], message: 'must be a GUID' }],
      }),
    );
    fireEvent.click(screen.getByTestId('onboard-submit'));
    expect((await screen.findByTestId('onboard-jwk-guid-error')).textContent).toBe('must be a GUID');
    expect(screen.queryByTestId('onboard-jwk-error')).toBeNull();

    fake.sandbox.onboard.mockRejectedValueOnce(new ConsoleError('CONFLICT', 'counterparty exists'));
    fireEvent.click(screen.getByTestId('onboard-submit'));
    expect((await screen.findByTestId('onboard-error')).textContent).toContain('counterparty exists');
  });
});

describe('SandboxPage: a counterparty', () => {
  const withCounterparty = (extra = {}) => fakeSandboxApi(status({ counterparties: [counterparty(extra)] }));

  async function openCounterparty(fake = withCounterparty()) {
    await renderPage(fake);
    const item = screen.getByTestId(`counterparty-${GUID}`);
    const toggle = within(item).getByTestId('counterparty-toggle');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    return { fake, item };
  }

  it('edits bank URLs with validation on entry and saves only what changed (empty clears)', async () => {
    const { fake, item } = await openCounterparty(
      withCounterparty({ bank_sender_url: 'http://127.0.0.1:9200' }),
    );
    const save = within(item).getByTestId('save-bank-urls') as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    type('bank-auth-url-input', 'localhost:9100', item);
    expect(item.textContent).toContain('must be an http(s) URL');
    expect(save.disabled).toBe(true);
    type('bank-auth-url-input', 'http://127.0.0.1:9100', item);
    type('bank-sender-url-input', '', item);
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    await within(item).findByTestId('bank-urls-saved');
    expect(fake.sandbox.updateCounterparty).toHaveBeenCalledWith({
      counterparty_guid: GUID,
      bank_auth_url: 'http://127.0.0.1:9100',
      bank_sender_url: null,
    });
  });

  it('runs sign-in with the pasted bank JWT (Bearer stripped) and opens its trace with every step', async () => {
    const { fake, item } = await openCounterparty(
      withCounterparty({ bank_auth_url: 'http://127.0.0.1:9100' }),
    );
    const run = within(item).getByTestId('run-sign-in') as HTMLButtonElement;
    expect(run.disabled).toBe(true);
    expect(item.textContent).toContain('bank-key-1'); // the kid to sign with
    fake.sandbox.signIn.mockResolvedValueOnce({
      ok: true,
      user: { external_id: 'ext-1', phone: '+4917', key: 'k' },
      failed: null,
      trace: trace({
        id: 'trace-sign-in',
        steps: [
          step('bank_jwt', 'passed', { detail: 'signed by bank-key-1' }),
          step('reachable', 'passed', {
            duration_ms: 230,
            request: {
              method: 'GET',
              url: 'http://127.0.0.1:9100/user_auth',
              headers: { 'X-Session-ID': 'eyJ…' },
              body: null,
            },
            response: {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: '{"external_id":"ext-1"}',
            },
          }),
          step('budget', 'passed', { duration_ms: 230 }),
        ],
      }),
    });
    type('sign-in-token', 'Bearer aaa.bbb.ccc\n', item);
    fireEvent.click(run);

    const result = await within(item).findByTestId('sign-in-result');
    expect(fake.sandbox.signIn).toHaveBeenCalledWith({ counterparty_guid: GUID, token: 'aaa.bbb.ccc' });
    expect(result.getAttribute('data-ok')).toBe('true');
    const t = screen.getByTestId('trace-trace-sign-in');
    expect(t.getAttribute('data-ok')).toBe('true');
    expect(within(t).getByTestId('trace-toggle').getAttribute('aria-expanded')).toBe('true');
    const steps = within(t).getAllByTestId(/^step-(bank_jwt|reachable|budget)$/);
    expect(steps.map((s) => [s.getAttribute('data-testid'), s.getAttribute('data-status')])).toEqual([
      ['step-bank_jwt', 'passed'],
      ['step-reachable', 'passed'],
      ['step-budget', 'passed'],
    ]);
    expect(steps[0]!.textContent).toContain('passed'); // status in words, not colour alone
    expect(steps[0]!.textContent).toContain('signed by bank-key-1');
    const duration = within(steps[1]!).getByTestId('step-duration');
    expect(duration.textContent).toContain('230 ms');
    expect(duration.querySelector('[role="img"]')!.getAttribute('aria-label')).toBe(
      '230 ms of the 1 s budget',
    );
    const request = within(steps[1]!).getByTestId('step-request');
    expect(request.tagName).toBe('DETAILS');
    expect(request.textContent).toContain('GET http://127.0.0.1:9100/user_auth');
    expect(request.textContent).toContain('X-Session-ID: eyJ…');
    expect(within(steps[1]!).getByTestId('step-response').textContent).toContain('"external_id": "ext-1"');
    expect(within(steps[1]!).getByTestId('copy-step-response').tagName).toBe('BUTTON');
  });

  it('shows a failed sign-in with the failed step, and a refusal as an error with its code', async () => {
    const { fake, item } = await openCounterparty();
    fake.sandbox.signIn.mockResolvedValueOnce({
      ok: false,
      user: null,
      failed: 'budget',
      trace: trace({
        id: 'trace-slow',
        steps: [
          step('bank_jwt', 'passed'),
          step('budget', 'failed', {
            title: 'Time (1 s budget)',
            duration_ms: 1350,
            detail: 'answered in 1,350 ms: over the 1 s budget',
          }),
        ],
      }),
    });
    type('sign-in-token', 'aaa.bbb.ccc', item);
    fireEvent.click(within(item).getByTestId('run-sign-in'));
    expect((await within(item).findByTestId('sign-in-result')).textContent).toContain('failed at budget');
    const t = screen.getByTestId('trace-trace-slow');
    expect(t.getAttribute('data-ok')).toBe('false');
    // The failure in its own words, never the step's title (issue 24).
    const head = within(t).getByTestId('trace-toggle').textContent;
    expect(head).toContain('failed at budget: answered in 1,350 ms: over the 1 s budget');
    expect(head).not.toContain('Time (1 s budget)');
    const slow = within(t).getByTestId('step-budget');
    expect(slow.getAttribute('data-status')).toBe('failed');
    expect(within(slow).getByTestId('step-duration').textContent).toContain('1.35 s');
    expect(within(slow).getByTestId('step-duration').className).toContain('budget-over');

    fake.sandbox.signIn.mockRejectedValueOnce(new ConsoleError('NOT_FOUND', 'no counterparty ' + GUID));
    fireEvent.click(within(item).getByTestId('run-sign-in'));
    const error = await within(item).findByTestId('sign-in-error');
    expect(error.getAttribute('data-code')).toBe('NOT_FOUND');
  });

  it('sends a transfer to the chosen side with an optional transaction_id checked on entry', async () => {
    const { fake, item } = await openCounterparty(
      withCounterparty({
        bank_sender_url: 'http://127.0.0.1:9200',
        bank_receiver_url: 'http://127.0.0.1:9300',
      }),
    );
    expect(item.textContent).toContain('http://127.0.0.1:9300'); // pay-in goes to the receiver
    expect(within(item).queryByTestId('notify-to-sender')).toBeNull();
    fireEvent.change(within(item).getByTestId('notify-event'), { target: { value: 'transfer' } });
    fireEvent.click(within(item).getByTestId('notify-to-sender'));
    expect(item.textContent).toContain('http://127.0.0.1:9200');
    type('notify-transaction-id', 'nope', item);
    expect((within(item).getByTestId('send-notification') as HTMLButtonElement).disabled).toBe(true);
    expect(item.textContent).toContain('transaction_id');
    const id = '0b7e9c54-3f6a-4d1e-8b2c-5a9f0e1d2c3b';
    type('notify-transaction-id', id, item);
    fireEvent.click(within(item).getByTestId('send-notification'));
    const result = await within(item).findByTestId('notify-result');
    expect(fake.sandbox.notify).toHaveBeenCalledWith({
      counterparty_guid: GUID,
      event: 'transfer',
      to: 'sender',
      transaction_id: id,
    });
    expect(result.getAttribute('data-status')).toBe('200');
    expect(within(result).getByTestId('notify-result-transaction-id').textContent).toBe(id);
  });

  it('composes the sign-in token with a registered vault key and a customer, then runs the sign-in', async () => {
    const fake = fakeSandboxApi(
      status({ counterparties: [counterparty({ bank_auth_url: 'http://127.0.0.1:9100' })] }),
      {
        keys: [keyInfo('other-key'), keyInfo('bank-key-1')],
        customers: [
          {
            obj: 'DE89370400440532013000',
            sub: 'ops@bank.example',
            external_id: 'ext-1',
            phone: '+4917',
            key_hint: '24 characters',
          },
          { obj: '+4915112345678', external_id: 'ext-2', phone: '+4915', key_hint: '24 characters' },
        ],
      },
    );
    const { item } = await openCounterparty(fake);
    // Compose is the default once a vault key is registered for the counterparty; it is preselected.
    await waitFor(() =>
      expect((within(item).getByTestId('sign-in-kid') as HTMLSelectElement).value).toBe('bank-key-1'),
    );
    expect((within(item).getByTestId('sign-in-mode-compose') as HTMLInputElement).checked).toBe(true);
    await waitFor(() =>
      expect((within(item).getByTestId('sign-in-obj') as HTMLInputElement).value).toBe(
        'DE89370400440532013000',
      ),
    );
    expect((within(item).getByTestId('sign-in-sub') as HTMLInputElement).value).toBe('ops@bank.example');
    // Picking another customer fills obj (it has no sub: the typed one stays).
    fireEvent.change(within(item).getByTestId('sign-in-customer'), { target: { value: '+4915112345678' } });
    expect((within(item).getByTestId('sign-in-obj') as HTMLInputElement).value).toBe('+4915112345678');
    fireEvent.click(within(item).getByTestId('run-sign-in'));
    await within(item).findByTestId('sign-in-result');
    expect(fake.jwt.sign).toHaveBeenCalledWith({
      kid: 'bank-key-1',
      obj: '+4915112345678',
      sub: 'ops@bank.example',
      ttl: 300,
    });
    const signed = await fake.jwt.sign.mock.results[0]!.value;
    expect(fake.sandbox.signIn).toHaveBeenCalledWith({ counterparty_guid: GUID, token: signed.token });
    expect(within(item).getByTestId('sign-in-copy-token')).toBeTruthy();

    // A key the counterparty does not know is flagged; an empty sub keeps Run disabled.
    fireEvent.change(within(item).getByTestId('sign-in-kid'), { target: { value: 'other-key' } });
    expect(within(item).getByTestId('sign-in-kid-unregistered').textContent).toContain('not registered');
    type('sign-in-sub', '', item);
    expect((within(item).getByTestId('run-sign-in') as HTMLButtonElement).disabled).toBe(true);
    expect(item.textContent).toContain('sub is required');
    // Paste stays an option.
    fireEvent.click(within(item).getByTestId('sign-in-mode-paste'));
    expect(within(item).getByTestId('sign-in-token')).toBeTruthy();
  });

  it('preselects the sandbox environment’s active key, never a key the sandbox retired (issue 26)', async () => {
    const registered = counterparty({
      bank_auth_url: 'http://127.0.0.1:9100',
      jwks: [
        ...counterparty().jwks,
        {
          jwk_guid: 'j2',
          jwk: { ...PUBLIC_JWK, kid: 'old-key' },
          registered_at: '2025-01-01T12:00:00.000Z',
          via: 'put',
        },
      ],
    });
    const fake = fakeSandboxApi(status({ counterparties: [registered] }), {
      // The first vault key is the one the sandbox retired, and another environment's walkthrough
      // left bank-key-1 "retired" profile-wide: the sandbox's own record decides.
      keys: [keyInfo('old-key', { status: 'active' }), keyInfo('bank-key-1', { status: 'retired' })],
      customers: [
        {
          obj: 'DE89370400440532013000',
          sub: 'ops@bank.example',
          external_id: 'e',
          phone: '+49',
          key_hint: 'x',
        },
      ],
      environments: [sandboxEnv({ active_kid: 'bank-key-1', retired_kids: ['old-key'] })],
    });
    const { item } = await openCounterparty(fake);
    await waitFor(() =>
      expect((within(item).getByTestId('sign-in-kid') as HTMLSelectElement).value).toBe('bank-key-1'),
    );
    fireEvent.click(within(item).getByTestId('run-sign-in'));
    await within(item).findByTestId('sign-in-result');
    expect(fake.jwt.sign).toHaveBeenCalledWith(expect.objectContaining({ kid: 'bank-key-1' }));
  });

  it('sends a malformed notification and calls the bank’s refusal a pass', async () => {
    const fake = withCounterparty({ bank_receiver_url: 'http://127.0.0.1:9300' });
    fake.sandbox.notify.mockResolvedValueOnce({
      transaction_id: '6c1b1d5e-7f0a-4b8e-9d3c-2a1f0e9b8c7d',
      delivery_id: '0b7e4a52-8f6c-4d3e-9a1b-2c3d4e5f6a7b',
      url: 'http://127.0.0.1:9300/api/svc/notify/pay-in',
      status: 400,
      duration_ms: 9,
      error: null,
      trace: trace({ kind: 'notify', steps: [step('delivered', 'passed'), step('status', 'passed')] }),
    });
    const { item } = await openCounterparty(fake);
    fireEvent.change(within(item).getByTestId('notify-body'), { target: { value: 'bad-uuid' } });
    expect(within(item).queryByTestId('notify-transaction-id')).toBeNull();
    expect(within(item).getByTestId('notify-body-shown').textContent).toContain('tx-');
    expect(item.textContent).toContain('should refuse it with 400');
    const send = within(item).getByTestId('send-notification');
    expect(send.textContent).toBe('Send malformed notification');
    fireEvent.click(send);
    const result = await within(item).findByTestId('notify-result');
    expect(fake.sandbox.notify).toHaveBeenCalledWith({
      counterparty_guid: GUID,
      event: 'pay-in',
      malformed: 'bad-uuid',
    });
    expect(result.getAttribute('data-status')).toBe('400');
    expect(result.className).toContain('text-pass');
  });
});

describe('SandboxPage: live traces', () => {
  it('lists stored traces newest first and prepends live ones; a change refetches the status', async () => {
    const fake = fakeSandboxApi();
    const older = trace({ id: 'older', at: '2025-01-01T10:00:00.000Z' });
    const newer = trace({ id: 'newer', at: '2025-01-01T11:00:00.000Z', kind: 'notify' });
    fake.setTraces([newer, older]);
    await renderPage(fake);
    await screen.findByTestId('trace-newer');
    const ids = () =>
      screen.getAllByTestId(/^trace-(older|newer|live)$/).map((el) => el.getAttribute('data-trace-id'));
    expect(ids()).toEqual(['newer', 'older']);

    const live = trace({
      id: 'live',
      at: '2025-01-01T12:00:00.000Z',
      steps: [step('bank_jwt', 'passed'), step('json', 'failed', { detail: 'not JSON' })],
    });
    act(() => fake.emit('sandbox.traced', live));
    // react-query batches cache notifications onto the next tick.
    const row = await screen.findByTestId('trace-live');
    expect(ids()).toEqual(['live', 'newer', 'older']);
    expect(row.textContent).toContain('failed at json');
    expect(row.textContent).toContain('120 ms');
    // Folded until opened; the head is a button (keyboard: Enter/Space).
    expect(within(row).queryByTestId('trace-steps')).toBeNull();
    fireEvent.click(within(row).getByTestId('trace-toggle'));
    expect(within(row).getByTestId('step-json').getAttribute('data-status')).toBe('failed');

    // The same trace again (as a call's result) is not listed twice.
    act(() => fake.emit('sandbox.traced', { ...live, duration_ms: 121 }));
    await waitFor(() => expect(screen.getByTestId('trace-live').textContent).toContain('121 ms'));
    expect(ids().filter((id) => id === 'live')).toHaveLength(1);

    const calls = fake.sandbox.status.mock.calls.length;
    fake.setState(status({ counterparties: [counterparty()] }));
    act(() =>
      fake.emit('sandbox.changed', {
        url: null,
        changed: 'counterparties',
        counterparty_count: 1,
        key_count: 1,
      }),
    );
    await screen.findByTestId(`counterparty-${GUID}`);
    expect(fake.sandbox.status.mock.calls.length).toBe(calls + 1);
  });

  it('still shows a trace stored before the answer judge, with its old `deadline` step', async () => {
    const fake = fakeSandboxApi();
    fake.setTraces([
      trace({
        id: 'old',
        steps: [
          step('bank_jwt', 'passed'),
          step('deadline', 'failed', {
            duration_ms: 1350,
            detail: 'answered in 1350 ms: over the 1 s budget',
          }),
        ],
      }),
    ]);
    await renderPage(fake);
    const row = await screen.findByTestId('trace-old');
    expect(row.textContent).toContain('failed at deadline: answered in 1350 ms: over the 1 s budget');
    fireEvent.click(within(row).getByTestId('trace-toggle'));
    expect(within(row).getByTestId('step-deadline').getAttribute('data-status')).toBe('failed');
  });

  it('explains what to do while there is no trace', async () => {
    await renderPage();
    expect((await screen.findByTestId('traces-empty')).textContent).toContain('Run a sign-in');
  });
});
