// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { badArgument, ConsoleError } from '../../../../electron/contract';
import { KeysPage } from '../../../../renderer/features/keys/keys-page';
import { resetKeysStore } from '../../../../renderer/features/keys/keys-store';
import { renderWithClient } from '../../support/render';
import { FINGERPRINT, GUID, fakeConsole, keyInfo, realEnv, sandboxEnv } from '../../support/fake-console';

const writeText = vi.fn(async (_text: string) => undefined);

beforeEach(() => {
  resetKeysStore();
  writeText.mockClear();
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

async function renderPage(fake = fakeConsole()) {
  renderWithClient(<KeysPage />, fake.api);
  await waitFor(() => expect(screen.getByTestId('keys-page').getAttribute('data-state')).toBe('ready'));
  return fake;
}

const row = (kid: string) => screen.getByTestId(`key-row-${kid}`);
const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('KeysPage: the table', () => {
  it('shows each environment’s status of a key; the row follows the header’s environment (issue 26)', async () => {
    const staging = realEnv({ active_kid: 'real-key', retired_kids: ['sandbox-key'] });
    const sandbox = sandboxEnv({ active_kid: 'sandbox-key' });
    const environments = [
      { environment: 'sandbox', name: 'Sandbox', status: 'active' as const },
      { environment: staging.id, name: staging.name, status: 'retired' as const },
    ];
    await renderPage(
      fakeConsole({
        environments: [sandbox, staging],
        activeId: 'sandbox',
        keys: [
          // Profile-wide, the second walkthrough retired the sandbox's key.
          keyInfo('sandbox-key', { status: 'retired', environments }),
          keyInfo('real-key', {
            status: 'active',
            environments: [{ environment: staging.id, name: staging.name, status: 'active' }],
          }),
          keyInfo('spare', { status: 'next', environments: [] }),
        ],
      }),
    );
    expect(row('sandbox-key').getAttribute('data-status')).toBe('active');
    const chips = within(row('sandbox-key')).getAllByTestId('key-env-status');
    expect(chips.map((c) => [c.getAttribute('data-environment'), c.getAttribute('data-status')])).toEqual([
      ['sandbox', 'active'],
      [staging.id, 'retired'],
    ]);
    expect(chips[0]!.textContent).toBe('Sandbox: active');
    expect(row('spare').textContent).toContain('none');
    expect(row('spare').getAttribute('data-status')).toBe('next');
  });

  it('keeps a cut kid and label readable in their title', async () => {
    const kid = '5f0c9a2e-7d41-4b8a-9c3e-0a1b2c3d4e5f';
    await renderPage(
      fakeConsole({ keys: [keyInfo(kid, { label: 'staging key for the March rotation drill' })] }),
    );
    expect(screen.getByTestId('key-kid').getAttribute('title')).toBe(kid);
    expect(row(kid).querySelector('.key-label')?.getAttribute('title')).toBe(
      'staging key for the March rotation drill',
    );
    // Issue 26 item 6: a copy button beside the cut kid copies the whole of it.
    const copy = screen.getByRole('button', { name: `Copy kid ${kid}` });
    fireEvent.click(copy);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(kid));
  });

  it('shows each key with its status, expiry and short fingerprint, and warns at 30 days or less', async () => {
    await renderPage(
      fakeConsole({
        keys: [
          keyInfo('k-far', { expires: '2026-06-01', expires_in_days: 31, label: 'Production 2026' }),
          keyInfo('k-30', { expires: '2025-07-01', expires_in_days: 30, status: 'next' }),
          keyInfo('k-today', { expires: '2025-06-01', expires_in_days: 0, status: 'retired' }),
          keyInfo('k-expired', { expires: '2025-05-29', expires_in_days: -3, status: 'retired' }),
          keyInfo('k-none', { status: 'retired' }),
        ],
      }),
    );
    expect(row('k-far').getAttribute('data-expiry')).toBe('ok');
    expect(within(row('k-far')).getByTestId('key-expiry').textContent).toContain('in 31 days');
    expect(within(row('k-far')).getByTestId('key-expiry').textContent).not.toContain('!');
    expect(row('k-far').textContent).toContain('Production 2026');

    expect(row('k-30').getAttribute('data-expiry')).toBe('soon');
    const soon = within(row('k-30')).getByTestId('key-expiry-warning');
    expect(soon.textContent).toBe('! in 30 days');
    expect(soon.className).toContain('badge-warn');
    expect(soon.getAttribute('title')).toContain('Within 30 days');

    expect(row('k-today').getAttribute('data-expiry')).toBe('soon');
    expect(within(row('k-today')).getByTestId('key-expiry').textContent).toContain('last day today');

    expect(row('k-expired').getAttribute('data-expiry')).toBe('expired');
    const expired = within(row('k-expired')).getByTestId('key-expiry-warning');
    expect(expired.textContent).toBe('! expired 3 days ago');
    expect(expired.className).toContain('badge-fail');

    expect(row('k-none').getAttribute('data-expiry')).toBe('none');
    expect(within(row('k-none')).getByTestId('key-expiry').textContent).toBe('no expiry');

    expect((within(row('k-30')).getByTestId('key-status') as HTMLSelectElement).value).toBe('next');
    const fp = within(row('k-far')).getByTestId('key-fingerprint');
    expect(fp.textContent).toBe(`${FINGERPRINT.slice(0, 10)}…`);
    expect(fp.getAttribute('title')).toContain(FINGERPRINT);
    fireEvent.click(within(row('k-far')).getByTestId('copy-fingerprint'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(FINGERPRINT));
  });

  it('changes a status through keys.update', async () => {
    const fake = await renderPage(fakeConsole({ keys: [keyInfo('k1'), keyInfo('k2', { status: 'next' })] }));
    fireEvent.change(within(row('k2')).getByTestId('key-status'), { target: { value: 'active' } });
    await waitFor(() => expect(fake.keys.update).toHaveBeenCalledWith({ kid: 'k2', status: 'active' }));
  });

  it('offers a first key when there is none', async () => {
    await renderPage();
    expect(screen.getByTestId('keys-empty').textContent).toContain('No signing key yet');
    fireEvent.click(screen.getByTestId('keys-generate-empty'));
    expect(screen.getByTestId('generate-dialog')).toBeTruthy();
  });
});

describe('KeysPage: generate', () => {
  it('sends RS256/2048 with no kid by default (the core picks a UUID), then lists the key', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('keys-generate'));
    const dialog = screen.getByTestId('generate-dialog');
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect((screen.getByTestId('gen-alg') as HTMLSelectElement).value).toBe('RS256');
    expect((screen.getByTestId('gen-bits') as HTMLSelectElement).value).toBe('2048');
    expect((screen.getByTestId('gen-kid') as HTMLInputElement).value).toBe('');
    expect(document.activeElement).toBe(screen.getByTestId('gen-kid'));
    fireEvent.click(screen.getByTestId('generate-submit'));
    await waitFor(() => expect(fake.keys.generate).toHaveBeenCalledWith({ alg: 'RS256', bits: 2048 }));
    await waitFor(() => expect(screen.queryByTestId('generate-dialog')).toBeNull());
    const created = fake.keys.generate.mock.results[0]!.value as Promise<{ kid: string }>;
    const { kid } = await created;
    expect((await screen.findByTestId(`key-row-${kid}`)).className).toContain('is-new');
  });

  it('sends every field typed, and checks the kid while typing', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('keys-generate'));
    type('gen-kid', 'bad kid');
    expect(screen.getByTestId('gen-kid-error').textContent).toContain('printable ASCII without spaces');
    expect((screen.getByTestId('generate-submit') as HTMLButtonElement).disabled).toBe(true);
    type('gen-kid', 'bank-2025-06');
    expect(screen.queryByTestId('gen-kid-error')).toBeNull();
    fireEvent.change(screen.getByTestId('gen-alg'), { target: { value: 'PS256' } });
    fireEvent.change(screen.getByTestId('gen-bits'), { target: { value: '4096' } });
    type('gen-label', ' Production ');
    type('gen-expires', '2026-06-30');
    type('gen-counterparty', GUID);
    fireEvent.click(screen.getByTestId('generate-submit'));
    await waitFor(() =>
      expect(fake.keys.generate).toHaveBeenCalledWith({
        alg: 'PS256',
        bits: 4096,
        kid: 'bank-2025-06',
        label: 'Production',
        expires: '2026-06-30',
        counterparty_guid: GUID,
      }),
    );
  });

  it('puts a refusal that names a field under that field', async () => {
    const fake = fakeConsole();
    fake.keys.generate.mockRejectedValueOnce(
      new ConsoleError('BAD_ARGUMENT', 'keys.generate: kid: a key with kid "k1" already exists', {
        field: 'kid',
        issues: [{ path: ['kid'], message: 'a key with kid "k1" already exists' }],
      }),
    );
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('keys-generate'));
    type('gen-kid', 'k1');
    fireEvent.click(screen.getByTestId('generate-submit'));
    expect((await screen.findByTestId('gen-kid-error')).textContent).toBe(
      'a key with kid "k1" already exists',
    );
    expect(screen.getByTestId('generate-dialog')).toBeTruthy();
  });

  it('closes on Escape without generating', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('keys-generate'));
    fireEvent.keyDown(screen.getByTestId('generate-dialog'), { key: 'Escape' });
    expect(screen.queryByTestId('generate-dialog')).toBeNull();
    expect(fake.keys.generate).not.toHaveBeenCalled();
  });
});

describe('KeysPage: import', () => {
  const PEM = '-----BEGIN RSA ' + 'PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA ' + 'PRIVATE KEY-----';

  it('warns that the key is never shown again, sends it to keys.import, and clears the textarea', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('keys-import'));
    expect(screen.getByTestId('import-warning').textContent).toContain('never shown again');
    const textarea = screen.getByTestId('import-text') as HTMLTextAreaElement;
    expect(textarea.getAttribute('spellcheck')).toBe('false');
    type('import-text', PEM);
    type('import-kid', 'legacy-2024');
    type('import-label', 'From the HSM export');
    fireEvent.click(screen.getByTestId('import-submit'));
    await waitFor(() =>
      expect(fake.keys.import).toHaveBeenCalledWith({
        text: PEM,
        kid: 'legacy-2024',
        label: 'From the HSM export',
      }),
    );
    expect((await screen.findByTestId('import-done')).textContent).toContain('legacy-2024');
    expect((screen.getByTestId('import-text') as HTMLTextAreaElement).value).toBe('');
    expect((screen.getByTestId('import-kid') as HTMLInputElement).value).toBe('');
    expect(document.body.innerHTML).not.toContain('MIIEowIBAAKCAQEA');
    expect(await screen.findByTestId('key-row-legacy-2024')).toBeTruthy();
  });

  it('keeps the text when the core refuses it, and says why', async () => {
    const fake = fakeConsole();
    fake.keys.import.mockRejectedValueOnce(
      new ConsoleError('KEY_INVALID', 'not a private key: PEM PKCS#8, PKCS#1 or a private JWK expected'),
    );
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('keys-import'));
    type('import-text', 'hello');
    fireEvent.click(screen.getByTestId('import-submit'));
    const error = await screen.findByTestId('import-error');
    expect(error.getAttribute('data-code')).toBe('KEY_INVALID');
    expect((screen.getByTestId('import-text') as HTMLTextAreaElement).value).toBe('hello');
  });
});

describe('KeysPage: add a key held elsewhere', () => {
  const COMMAND = 'pkcs11-tool --login --pin env:HSM_PIN --sign --id 01 -m SHA256-RSA-PKCS -i {in} -o {out}';
  const PUBLIC = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----';

  it('sends the public key, kid, command and status to keys.addExternal, then lists it as held elsewhere', async () => {
    const fake = await renderPage(fakeConsole({ keys: [keyInfo('vault-key')] }));
    fireEvent.click(screen.getByTestId('keys-external'));
    expect((screen.getByTestId('external-submit') as HTMLButtonElement).disabled).toBe(true);
    type('external-public', PUBLIC);
    type('external-kid', 'hsm-2026');
    type('external-command', COMMAND);
    fireEvent.change(screen.getByTestId('external-status'), { target: { value: 'next' } });
    fireEvent.click(screen.getByTestId('external-submit'));
    await waitFor(() =>
      expect(fake.keys.addExternal).toHaveBeenCalledWith({
        public_key: PUBLIC,
        kid: 'hsm-2026',
        sign_command: COMMAND,
        status: 'next',
      }),
    );
    const added = await screen.findByTestId('key-row-hsm-2026');
    expect(within(added).getByTestId('key-held-elsewhere').getAttribute('title')).toContain('pkcs11-tool');
    expect(screen.queryByTestId('external-dialog')).toBeNull();
    expect(within(row('vault-key')).queryByTestId('key-held-elsewhere')).toBeNull();
  });

  it('puts the core’s refusal of the command under the command field, and keeps what was typed', async () => {
    const fake = fakeConsole();
    fake.keys.addExternal.mockRejectedValueOnce(
      badArgument(
        'sign_command: the signing command would store a secret in the profile (word 4 is a literal value of --pin)',
        'sign_command',
        [
          {
            path: ['sign_command'],
            message:
              'the signing command would store a secret in the profile (word 4 is a literal value of --pin)',
          },
        ],
      ),
    );
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('keys-external'));
    type('external-public', PUBLIC);
    type('external-kid', 'hsm-2026');
    type('external-command', 'pkcs11-tool --login --pin 1234 --sign -i {in} -o {out}');
    fireEvent.click(screen.getByTestId('external-submit'));
    expect((await screen.findByTestId('external-command-error')).textContent).toContain(
      'would store a secret',
    );
    expect((screen.getByTestId('external-command') as HTMLTextAreaElement).value).toContain('--pin 1234');
  });
});

describe('KeysPage: export', () => {
  it('shows the public JWK with Copy and Save as file, and switches formats', async () => {
    const fake = await renderPage(fakeConsole({ keys: [keyInfo('k1')] }));
    const createObjectURL = vi.fn((_blob: Blob) => 'blob:fake');
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });

    fireEvent.click(within(row('k1')).getByTestId('key-export'));
    const text = await screen.findByTestId('export-text');
    expect(fake.keys.export).toHaveBeenCalledWith({ kid: 'k1', format: 'jwk' });
    expect(JSON.parse(text.textContent!)).toEqual({
      alg: 'RS256',
      e: 'AQAB',
      kid: 'k1',
      kty: 'RSA',
      n: 'n-of-k1',
      use: 'sig',
    });
    expect(screen.getByTestId('export-dialog').textContent).toContain('never paste a key into a website');

    fireEvent.click(screen.getByTestId('export-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(text.textContent));
    expect(screen.getByTestId('export-copy').textContent).toBe('Copied');

    fireEvent.click(screen.getByTestId('export-save'));
    expect(createObjectURL).toHaveBeenCalledTimes(1);
    const blob = createObjectURL.mock.calls[0]![0];
    expect(blob.type).toBe('application/json');
    expect(await blob.text()).toBe(text.textContent);
    expect(clicked[0]!.download).toBe('k1.jwk.json');

    fireEvent.click(screen.getByTestId('export-format-pem'));
    await waitFor(() => expect(screen.getByTestId('export-text').textContent).toContain('BEGIN PUBLIC KEY'));
    expect(fake.keys.export).toHaveBeenLastCalledWith({ kid: 'k1', format: 'pem' });
    expect(screen.getByTestId('export-save').textContent).toContain('k1.pem');
  });
});

describe('KeysPage: delete', () => {
  it('deletes only after the kid is typed', async () => {
    const fake = await renderPage(fakeConsole({ keys: [keyInfo('k1'), keyInfo('k2', { status: 'next' })] }));
    fireEvent.click(within(row('k2')).getByTestId('key-delete'));
    const confirm = screen.getByTestId('delete-confirm') as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    type('delete-confirm-input', 'k');
    expect(confirm.disabled).toBe(true);
    type('delete-confirm-input', 'k2');
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await waitFor(() => expect(fake.keys.delete).toHaveBeenCalledWith({ kid: 'k2', confirm: true }));
    await waitFor(() => expect(screen.queryByTestId('key-row-k2')).toBeNull());
    expect(screen.queryByTestId('delete-dialog')).toBeNull();
  });

  it("says when the key is an environment's active key", async () => {
    await renderPage(
      fakeConsole({
        keys: [keyInfo('k1')],
        environments: [sandboxEnv({ active_kid: 'k1', counterparty_guid: GUID })],
      }),
    );
    fireEvent.click(within(row('k1')).getByTestId('key-delete'));
    expect(screen.getByTestId('delete-in-use').textContent).toContain('Sandbox');
  });
});

describe('KeysPage: register with the sandbox', () => {
  it('onboards the public JWK, saves the GUID and the kid on the sandbox environment, and shows the GUID', async () => {
    const fake = await renderPage(fakeConsole({ keys: [keyInfo('k1')] }));
    expect(screen.getByTestId('register-hint')).toBeTruthy();
    fireEvent.click(within(row('k1')).getByTestId('key-register-sandbox'));
    expect((await screen.findByTestId('register-guid')).textContent).toBe(GUID);
    expect(fake.sandbox.onboard).toHaveBeenCalledWith({ jwk: keyInfo('k1').public_jwk });
    expect(fake.env.save).toHaveBeenCalledWith({ id: 'sandbox', counterparty_guid: GUID, active_kid: 'k1' });
    // The environment now has a counterparty: the action is gone, the key is marked as the sandbox's.
    await waitFor(() => expect(screen.queryByTestId('key-register-sandbox')).toBeNull());
    expect(within(row('k1')).getByTestId('key-in-env').textContent).toContain('Sandbox');
  });

  it('is not offered for a real environment, nor once the sandbox has a counterparty', async () => {
    await renderPage(
      fakeConsole({ keys: [keyInfo('k1')], environments: [sandboxEnv(), realEnv()], activeId: 'env-test' }),
    );
    expect(screen.queryByTestId('key-register-sandbox')).toBeNull();
    cleanup();
    await renderPage(
      fakeConsole({ keys: [keyInfo('k1')], environments: [sandboxEnv({ counterparty_guid: GUID })] }),
    );
    expect(screen.queryByTestId('key-register-sandbox')).toBeNull();
  });

  it('says so when the sandbox onboarded the key but the environment was not saved', async () => {
    const fake = fakeConsole({ keys: [keyInfo('k1')] });
    fake.env.save.mockRejectedValueOnce(
      new ConsoleError('STATE_DAMAGED', 'environments.json is not valid JSON'),
    );
    await renderPage(fake);
    fireEvent.click(within(row('k1')).getByTestId('key-register-sandbox'));
    const error = await screen.findByTestId('register-error');
    expect(error.textContent).toContain('Registered, but the environment was not updated');
    expect(error.textContent).toContain(GUID);
  });
});
