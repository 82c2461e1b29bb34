// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { useAppLiveUpdates } from '../../../../renderer/app/live-updates';
import { KeysPage } from '../../../../renderer/features/keys/keys-page';
import { resetKeysStore } from '../../../../renderer/features/keys/keys-store';
import { VaultBanner } from '../../../../renderer/features/vault/vault-banner';
import { renderWithClient } from '../../support/render';
import { fakeConsole } from '../../support/fake-console';

afterEach(() => {
  cleanup();
  resetKeysStore();
});

function LiveUpdates() {
  useAppLiveUpdates();
  return null;
}

function renderBanner(fake: ReturnType<typeof fakeConsole>) {
  renderWithClient(
    <>
      <LiveUpdates />
      <VaultBanner />
      <p data-testid="page">page</p>
    </>,
    fake.api,
  );
  return fake;
}

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

const NO_KEYCHAIN = {
  state: 'unavailable' as const,
  kind: null,
  detail: 'No Secret Service on the session bus: install gnome-keyring or use a passphrase vault.',
  code: 'KEYCHAIN_UNAVAILABLE' as const,
};

describe('VaultBanner', () => {
  it('shows nothing while the vault is unlocked, and appears when vault.changed says otherwise', async () => {
    const fake = renderBanner(fakeConsole());
    await waitFor(() => expect(fake.vault.status).toHaveBeenCalled());
    expect(screen.queryByTestId('vault-banner')).toBeNull();
    act(() => fake.emit('vault.changed', NO_KEYCHAIN));
    expect((await screen.findByTestId('vault-banner')).getAttribute('data-state')).toBe('unavailable');
  });

  it('where no keychain answers: says why, and creates an explicit passphrase vault (12+ characters, confirmed)', async () => {
    const fake = renderBanner(fakeConsole({ vault: NO_KEYCHAIN }));
    const banner = await screen.findByTestId('vault-banner');
    expect(banner.getAttribute('data-state')).toBe('unavailable');
    expect(screen.getByTestId('vault-detail').textContent).toBe(NO_KEYCHAIN.detail);
    // Issue 26: plain words up front; the keychain's raw message behind a closed disclosure.
    expect(screen.getByTestId('vault-plain').textContent).toMatch(/Start or unlock the system keychain/);
    const raw = screen.getByTestId('vault-raw') as HTMLDetailsElement;
    expect(raw.tagName).toBe('DETAILS');
    expect(raw.open).toBe(false);
    expect(raw.contains(screen.getByTestId('vault-detail'))).toBe(true);
    fireEvent.click(screen.getByTestId('vault-create-open'));
    const warning = screen.getByTestId('vault-fallback-warning').textContent!;
    expect(warning).toContain('Fallback for machines without a keychain');
    expect(warning).toContain('stored nowhere');

    type('vault-passphrase', 'short');
    expect(screen.getByTestId('vault-passphrase-error').textContent).toContain(
      'At least 12 characters (5 so far)',
    );
    fireEvent.click(screen.getByTestId('vault-create-submit'));
    expect(fake.vault.createPassphrase).not.toHaveBeenCalled();

    type('vault-passphrase', 'correct horse battery');
    expect(screen.queryByTestId('vault-passphrase-error')).toBeNull();
    type('vault-passphrase-confirm', 'correct horse battery staple');
    expect(screen.getByTestId('vault-passphrase-confirm-error').textContent).toContain('differ');
    fireEvent.click(screen.getByTestId('vault-create-submit'));
    expect(fake.vault.createPassphrase).not.toHaveBeenCalled();

    type('vault-passphrase-confirm', 'correct horse battery');
    fireEvent.click(screen.getByTestId('vault-create-submit'));
    await waitFor(() =>
      expect(fake.vault.createPassphrase).toHaveBeenCalledWith({ passphrase: 'correct horse battery' }),
    );
    await waitFor(() => expect(screen.queryByTestId('vault-banner')).toBeNull());
    expect(screen.getByTestId('page')).toBeTruthy();
  });

  it('appears as soon as a call fails for want of a keychain (the status is asked again)', async () => {
    const fake = fakeConsole({ vault: { state: 'uninitialized', kind: null, detail: 'No vault yet.' } });
    renderWithClient(
      <>
        <VaultBanner />
        <KeysPage />
      </>,
      fake.api,
    );
    await screen.findByTestId('keys-empty');
    expect(screen.queryByTestId('vault-banner')).toBeNull();
    fake.keys.generate.mockRejectedValueOnce(new ConsoleError('KEYCHAIN_UNAVAILABLE', NO_KEYCHAIN.detail));
    fake.setVault(NO_KEYCHAIN);
    fireEvent.click(screen.getByTestId('keys-generate-empty'));
    fireEvent.click(screen.getByTestId('generate-submit'));
    expect((await screen.findByTestId('generate-error')).getAttribute('data-code')).toBe(
      'KEYCHAIN_UNAVAILABLE',
    );
    expect((await screen.findByTestId('vault-banner')).getAttribute('data-state')).toBe('unavailable');
    // Escape closes the dialog even though focus fell to the page while the call ran.
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(screen.queryByTestId('generate-dialog')).toBeNull();
  });

  it('does not offer a passphrase vault over an existing keychain vault', async () => {
    renderBanner(
      fakeConsole({
        vault: {
          state: 'unavailable',
          kind: 'keychain',
          detail: 'The vault key is not in this keychain.',
          code: 'VAULT_KEY_MISSING',
        },
      }),
    );
    const banner = await screen.findByTestId('vault-banner');
    expect(banner.getAttribute('data-code')).toBe('VAULT_KEY_MISSING');
    expect(screen.queryByTestId('vault-create-open')).toBeNull();
    expect(screen.getByTestId('vault-existing').textContent).toContain('cannot replace it');
  });

  it('unlocks a locked passphrase vault, and says so when the passphrase is wrong', async () => {
    const fake = fakeConsole({
      vault: {
        state: 'locked',
        kind: 'passphrase',
        detail: 'Unlock it or set DETS_VAULT_PASSPHRASE.',
        code: 'VAULT_LOCKED',
      },
    });
    fake.vault.unlock.mockRejectedValueOnce(new ConsoleError('VAULT_PASSPHRASE_WRONG', 'Wrong passphrase.'));
    renderBanner(fake);
    expect((await screen.findByTestId('vault-banner')).getAttribute('data-state')).toBe('locked');
    expect((screen.getByTestId('vault-unlock-submit') as HTMLButtonElement).disabled).toBe(true);
    type('vault-unlock-passphrase', 'not it at all');
    fireEvent.click(screen.getByTestId('vault-unlock-submit'));
    const error = await screen.findByTestId('vault-error');
    expect(error.getAttribute('data-code')).toBe('VAULT_PASSPHRASE_WRONG');
    type('vault-unlock-passphrase', 'the right passphrase');
    expect(screen.queryByTestId('vault-error')).toBeNull();
    fireEvent.click(screen.getByTestId('vault-unlock-submit'));
    await waitFor(() =>
      expect(fake.vault.unlock).toHaveBeenLastCalledWith({ passphrase: 'the right passphrase' }),
    );
    await waitFor(() => expect(screen.queryByTestId('vault-banner')).toBeNull());
  });
});
