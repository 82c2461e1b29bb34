// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useAppLiveUpdates } from '../../../../renderer/app/live-updates';
import { ServicePage } from '../../../../renderer/features/service/service-page';
import { resetServiceStore } from '../../../../renderer/features/service/service-store';
import { renderWithClient } from '../../support/render';
import {
  GUID,
  exchange,
  fakeConsole,
  keyInfo,
  realEnv,
  rotation,
  sandboxEnv,
} from '../../support/fake-console';

const writeText = vi.fn(async (_text: string) => undefined);

beforeEach(() => {
  resetServiceStore();
  writeText.mockClear();
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  Element.prototype.scrollIntoView = vi.fn();
});
afterEach(() => cleanup());

const ENV = sandboxEnv({
  counterparty_guid: GUID,
  active_kid: 'old-key',
  default_obj: 'DE89370400440532013000',
  default_sub: 'ops@bank.example',
});

function console_(extra: Parameters<typeof fakeConsole>[0] = {}) {
  return fakeConsole({ keys: [keyInfo('old-key')], environments: [ENV], ...extra });
}

/** The shell's app-wide live updates (service.exchanged, service.rotated…), as in the app. */
function LiveUpdates() {
  useAppLiveUpdates();
  return null;
}

async function renderPage(fake = console_()) {
  renderWithClient(
    <>
      <LiveUpdates />
      <ServicePage />
    </>,
    fake.api,
  );
  await waitFor(() => expect(screen.getByTestId('service-page').getAttribute('data-state')).toBe('ready'));
  await waitFor(() => expect(screen.getByTestId('env-summary')).toBeTruthy());
  return fake;
}

describe('ServicePage: authenticate', () => {
  it("authenticates in one click with the environment's key and default claims, and shows the session_token's checks", async () => {
    const fake = await renderPage();
    await waitFor(() => expect((screen.getByTestId('auth-kid') as HTMLSelectElement).value).toBe('old-key'));
    fireEvent.click(screen.getByTestId('service-authenticate'));
    const result = await screen.findByTestId('authenticate-result');
    expect(fake.service.authenticate).toHaveBeenCalledWith({
      kid: 'old-key',
      obj: 'DE89370400440532013000',
      sub: 'ops@bank.example',
    });
    expect(result.getAttribute('data-ok')).toBe('true');
    expect(within(result).getByTestId('exchange-status').textContent).toBe('HTTP 200');
    const checks = within(result).getByTestId('session-checks');
    expect(within(checks).getByTestId('verdict').getAttribute('data-verdict')).toBe('passed');
    for (const id of ['signature', 'obj', 'sub'])
      expect(within(checks).getByTestId(`check-${id}`).getAttribute('data-status')).toBe('passed');
    // The exchange joins the history at once.
    const history = screen.getByTestId('exchanges');
    expect(within(history).getAllByTestId('exchange-line')).toHaveLength(1);
  });

  it('sends a pasted token as it is, wrappers stripped', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('auth-mode-paste'));
    fireEvent.change(screen.getByTestId('auth-token'), {
      target: { value: 'CX-Authorization: Bearer aaa.bbb.ccc' },
    });
    fireEvent.click(screen.getByTestId('service-authenticate'));
    await waitFor(() => expect(fake.service.authenticate).toHaveBeenCalledWith({ token: 'aaa.bbb.ccc' }));
  });

  it('shows a refusal raw, with what it probably means', async () => {
    const fake = console_();
    fake.service.authenticate.mockResolvedValueOnce({
      exchange: exchange({
        ok: false,
        response: {
          status: 401,
          headers: {},
          body: '{"error":"unauthorized","detail":"kid not registered"}',
        },
        error: '401 {"error":"unauthorized","detail":"kid not registered"}',
        explanation: 'The service does not know this kid: register the key first (rotation: step 2).',
      }),
      session_token: null,
      session_report: null,
    });
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('service-authenticate'));
    const result = await screen.findByTestId('authenticate-result');
    expect(result.getAttribute('data-ok')).toBe('false');
    expect(within(result).getByTestId('exchange-status').textContent).toBe('HTTP 401');
    expect(within(result).getByTestId('exchange-error').textContent).toContain('kid not registered');
    expect(within(result).getByTestId('exchange-explanation').textContent).toContain(
      'register the key first',
    );
    expect(within(result).queryByTestId('session-token')).toBeNull();
  });
});

describe('ServicePage: exchanges', () => {
  it('lists the history newest first, adds live exchanges on top, and opens one to its request, response and curl', async () => {
    const older = exchange({ operation: 'fetch-jwks', at: '2025-01-01T11:00:00.000Z' });
    const fake = await renderPage(console_({ exchanges: [older] }));
    expect(screen.getAllByTestId('exchange-line')).toHaveLength(1);
    const live = exchange({
      operation: 'update-jwk',
      at: '2025-01-01T13:00:00.000Z',
      request: {
        method: 'PUT',
        url: `http://127.0.0.1:7302/api/v1/counterparty/${GUID}/jwk/x`,
        headers: { 'Content-Type': 'application/json' },
        body: '{"data":{"kty":"RSA"}}',
      },
    });
    act(() => fake.emit('service.exchanged', live));
    await waitFor(() =>
      expect(screen.getAllByTestId(/^exchange-ex-/).map((i) => i.getAttribute('data-exchange-id'))).toEqual([
        live.id,
        older.id,
      ]),
    );

    const item = screen.getByTestId(`exchange-${live.id}`);
    fireEvent.click(within(item).getByTestId('exchange-toggle'));
    expect(within(item).getByTestId('exchange-request').textContent).toContain('PUT http://127.0.0.1:7302');
    expect(within(item).getByTestId('exchange-request').textContent).toContain(
      'Content-Type: application/json',
    );
    expect(within(item).getByTestId('exchange-request').textContent).toContain('"kty": "RSA"');
    expect(within(item).getByTestId('exchange-response').textContent).toContain('HTTP 200');
    fireEvent.click(within(item).getByTestId('copy-exchange-curl'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(live.curl));
  });

  it('runs the key endpoints: fetch JWKS, list, register (POST) and update (PUT)', async () => {
    const fake = await renderPage(
      console_({ keys: [keyInfo('old-key'), keyInfo('next-key', { status: 'next' })] }),
    );
    fireEvent.click(screen.getByTestId('service-fetch-jwks'));
    await waitFor(() => expect(fake.service.fetchJwks).toHaveBeenCalled());
    expect((await screen.findByTestId('jwk-result')).textContent).toContain('fetch JWKS');
    fireEvent.click(screen.getByTestId('service-list-jwks'));
    await waitFor(() => expect(fake.service.listJwks).toHaveBeenCalled());
    // The key waiting for its turn is the one offered for registration.
    expect((screen.getByTestId('jwk-kid') as HTMLSelectElement).value).toBe('next-key');
    fireEvent.click(screen.getByTestId('service-register-jwk'));
    await waitFor(() => expect(fake.service.registerJwk).toHaveBeenCalledWith({ kid: 'next-key' }));
    fireEvent.change(screen.getByTestId('jwk-guid'), { target: { value: 'not-a-guid' } });
    expect(screen.getByTestId('jwk-guid-error').textContent).toContain('must be a GUID');
    expect((screen.getByTestId('service-update-jwk') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId('jwk-guid'), { target: { value: GUID } });
    fireEvent.click(screen.getByTestId('service-update-jwk'));
    await waitFor(() =>
      expect(fake.service.updateJwk).toHaveBeenCalledWith({ kid: 'next-key', jwk_guid: GUID }),
    );
  });
});

describe('ServicePage: rotation', () => {
  it('explains the five steps, rotates, and shows each step', async () => {
    const fake = await renderPage();
    const plan = screen.getByTestId('rotation-plan');
    expect(plan.querySelectorAll('li')).toHaveLength(5);
    expect(plan.textContent).toContain('PUT …/jwk/{jwk_guid}');
    fireEvent.click(screen.getByTestId('rotate-start'));
    await waitFor(() => expect(fake.service.rotate).toHaveBeenCalledWith({ alg: 'RS256', bits: 2048 }));
    const result = await screen.findByTestId('rotation-result');
    expect(result.getAttribute('data-state')).toBe('done');
    expect(screen.getByTestId('rotation-done').textContent).toContain('next-key is now the active key');
    expect(screen.getByTestId('rotation-step-retire').getAttribute('data-status')).toBe('passed');
  });

  it('rotates to a key already added with status next (one held in an HSM), generating nothing', async () => {
    const hsm = keyInfo('next-key', {
      status: 'next',
      holder: 'external',
      sign_command: ['pkcs11-tool', '--sign', '-i', '{in}', '-o', '{out}'],
    });
    const fake = await renderPage(console_({ keys: [keyInfo('old-key'), hsm] }));
    const next = screen.getByTestId('rotate-next') as HTMLSelectElement;
    await waitFor(() => expect([...next.options].map((o) => o.value)).toEqual(['', 'next-key']));
    fireEvent.change(next, { target: { value: 'next-key' } });
    // The new key's shape no longer applies: nothing is generated.
    expect(screen.queryByTestId('rotate-alg')).toBeNull();
    fireEvent.click(screen.getByTestId('rotate-start'));
    await waitFor(() => expect(fake.service.rotate).toHaveBeenCalledWith({ next_kid: 'next-key' }));
  });

  it('on failure says the old key is still active, and retries with the same next key', async () => {
    const failed = rotation({
      state: 'failed',
      steps: [
        {
          id: 'generate',
          title: 'Generate the next key',
          status: 'passed',
          detail: 'next-key',
          exchange_id: null,
        },
        {
          id: 'register',
          title: 'Register it with PUT',
          status: 'failed',
          detail: '401 from the service: the current key was refused',
          exchange_id: 'ex-put-1',
        },
        { id: 'prove', title: 'Authenticate with it', status: 'skipped', detail: '', exchange_id: null },
        { id: 'activate', title: 'Activate it', status: 'skipped', detail: '', exchange_id: null },
        { id: 'retire', title: 'Retire the old key', status: 'skipped', detail: '', exchange_id: null },
      ],
    });
    const put = exchange({ id: 'ex-put-1', operation: 'update-jwk', ok: false });
    const fake = console_({ exchanges: [put] });
    fake.service.rotate.mockResolvedValueOnce(failed);
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('rotate-start'));

    const banner = await screen.findByTestId('rotation-failed');
    expect(banner.textContent).toContain('Rotation stopped at “Register it with PUT”');
    expect(banner.textContent).toContain('The old key old-key is still active');
    const step = screen.getByTestId('rotation-step-register');
    expect(step.getAttribute('data-status')).toBe('failed');
    expect(step.textContent).toContain('the current key was refused');

    // The step's exchange opens in the history.
    fireEvent.click(within(step).getByTestId('rotation-step-exchange'));
    await waitFor(() =>
      expect(
        within(screen.getByTestId('exchange-ex-put-1'))
          .getByTestId('exchange-toggle')
          .getAttribute('aria-expanded'),
      ).toBe('true'),
    );

    const retry = screen.getByTestId('rotate-retry');
    expect(retry.textContent).toContain('Retry with the same next key (next-key)');
    fireEvent.click(retry);
    await waitFor(() => expect(fake.service.rotate).toHaveBeenLastCalledWith({ next_kid: 'next-key' }));
    await waitFor(() =>
      expect(screen.getByTestId('rotation-result').getAttribute('data-state')).toBe('done'),
    );
  });

  it('shows a rotation run elsewhere (the CLI, another window) from the live event', async () => {
    const fake = await renderPage();
    expect(screen.queryByTestId('rotation-result')).toBeNull();
    act(() => fake.emit('service.rotated', rotation({ to_kid: 'cli-key' })));
    expect((await screen.findByTestId('rotation-done')).textContent).toContain('cli-key');
  });

  it('asks before rotating the key of a real environment; Cancel sends nothing', async () => {
    const env = realEnv({ id: 'uat', active_kid: 'old-key' });
    const fake = console_({ environments: [ENV, env], activeId: 'uat' });
    await renderPage(fake);
    await waitFor(() =>
      expect((screen.getByTestId('rotate-start') as HTMLButtonElement).disabled).toBe(false),
    );
    fireEvent.click(screen.getByTestId('rotate-start'));
    const dialog = await screen.findByTestId('rotate-confirm');
    expect(dialog.textContent).toContain('https://dets.example.com');
    expect(dialog.textContent).toContain('old-key');
    fireEvent.click(within(dialog).getByTestId('rotate-confirm-cancel'));
    expect(screen.queryByTestId('rotate-confirm')).toBeNull();
    expect(fake.service.rotate).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('rotate-start'));
    fireEvent.click(within(await screen.findByTestId('rotate-confirm')).getByTestId('rotate-confirm-go'));
    await waitFor(() => expect(fake.service.rotate).toHaveBeenCalledWith({ alg: 'RS256', bits: 2048 }));
  });

  it('the confirmation names the new key’s expiry (the default 365 days, or the date typed), and the done banner its date (issue 26 item 5)', async () => {
    const env = realEnv({ id: 'uat', active_kid: 'old-key' });
    const fake = console_({
      environments: [ENV, env],
      activeId: 'uat',
      keys: [keyInfo('old-key'), keyInfo('next-key', { status: 'next', expires: '2031-02-03' })],
    });
    await renderPage(fake);
    await waitFor(() =>
      expect((screen.getByTestId('rotate-start') as HTMLButtonElement).disabled).toBe(false),
    );
    fireEvent.click(screen.getByTestId('rotate-start'));
    const defaultDay = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    const expiry = await screen.findByTestId('rotate-confirm-expiry');
    expect(expiry.textContent).toBe(`The new key is valid until ${defaultDay} (the default, 365 days).`);
    fireEvent.click(screen.getByTestId('rotate-confirm-cancel'));
    fireEvent.change(screen.getByTestId('rotate-expires'), { target: { value: '2030-06-30' } });
    fireEvent.click(screen.getByTestId('rotate-start'));
    expect((await screen.findByTestId('rotate-confirm-expiry')).textContent).toContain(
      'valid until 2030-06-30 (the date you chose)',
    );
    fireEvent.click(screen.getByTestId('rotate-confirm-go'));
    await waitFor(() =>
      expect(fake.service.rotate).toHaveBeenCalledWith({ alg: 'RS256', bits: 2048, expires: '2030-06-30' }),
    );
    // Done: the new key's own date, from the key list.
    expect((await screen.findByTestId('rotation-new-expires')).textContent).toContain(
      'valid until 2031-02-03',
    );
  });

  it('cannot start without a counterparty, and says what is missing', async () => {
    await renderPage(console_({ environments: [sandboxEnv({ active_kid: 'old-key' })] }));
    expect((screen.getByTestId('rotate-start') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('env-missing').textContent).toContain('a counterparty GUID');
  });
});
