import { useState, type FormEvent } from 'react';
import type { VaultStatus } from '../../../electron/contract/schemas/keys';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { TextField } from '../../ui/text-field';
import { useCreatePassphraseVault, useUnlockVault, useVaultStatus } from '../../data/vault';
import { Allowed } from '../../shared/allowed';

/** The contract's minimum (schemas/keys.ts CreatePassphraseVaultInput). */
export const MIN_PASSPHRASE = 12;

/**
 * App-wide: when keys cannot be used, say so on every page and offer the one way forward
 * (DESIGN.md "Secrets"): unlock a passphrase vault, or, where no OS keychain answers, create an
 * explicit passphrase vault. Never a silent plaintext fallback. Nothing when unlocked.
 */
export function VaultBanner() {
  const status = useVaultStatus();
  const data = status.data;
  if (!data) return null;
  if (data.state === 'locked') return <LockedBanner status={data} />;
  if (data.state === 'unavailable') return <UnavailableBanner status={data} />;
  return null;
}

function LockedBanner({ status }: { status: VaultStatus }) {
  const unlock = useUnlockVault();
  const [passphrase, setPassphrase] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (passphrase === '') return;
    unlock.mutate(passphrase, { onSuccess: () => setPassphrase('') });
  };
  return (
    <div
      className="banner banner-warn vault-banner"
      role="region"
      aria-label="Vault"
      data-testid="vault-banner"
      data-state="locked"
    >
      <span className="banner-icon" aria-hidden="true">
        !
      </span>
      <div className="banner-body">
        <p>
          <strong>The vault is locked: keys cannot sign until you unlock it.</strong>{' '}
          <span data-testid="vault-detail">{status.detail}</span>
        </p>
        <Allowed method="vault.unlock">
          <form className="vault-form" onSubmit={submit} noValidate>
            <label htmlFor="vault-unlock-passphrase" className="sr-only">
              Vault passphrase
            </label>
            <input
              id="vault-unlock-passphrase"
              type="password"
              className="input"
              placeholder="Vault passphrase"
              autoComplete="current-password"
              value={passphrase}
              onChange={(e) => {
                if (unlock.error) unlock.reset();
                setPassphrase(e.target.value);
              }}
              aria-invalid={unlock.error ? true : undefined}
              data-testid="vault-unlock-passphrase"
            />
            <button
              type="submit"
              className="btn btn-small btn-primary"
              disabled={passphrase === '' || unlock.isPending}
              data-testid="vault-unlock-submit"
            >
              {unlock.isPending ? 'Unlocking…' : 'Unlock'}
            </button>
          </form>
        </Allowed>
        {unlock.error ? <ErrorPanel title="Not unlocked" error={unlock.error} testId="vault-error" /> : null}
      </div>
    </div>
  );
}

const UNAVAILABLE_HEADLINE: Partial<Record<NonNullable<VaultStatus['code']>, string>> = {
  KEYCHAIN_UNAVAILABLE: 'No OS keychain answered: signing keys cannot be stored or used.',
  VAULT_KEY_MISSING: 'The vault’s key is not in this machine’s keychain: signing keys cannot be used.',
  VAULT_DAMAGED: 'The vault file is damaged: signing keys cannot be used.',
};

/** What an engineer can do, in plain words, whatever the keychain's own message was. */
const UNAVAILABLE_WHAT_TO_DO =
  'Start or unlock the system keychain (GNOME Keyring or KWallet on Linux, Keychain on macOS, Credential Manager on Windows) and reload, or keep the keys in a passphrase vault.';

function UnavailableBanner({ status }: { status: VaultStatus }) {
  const [open, setOpen] = useState(false);
  return (
    <div
      className="banner banner-fail vault-banner"
      role="region"
      aria-label="Vault"
      data-testid="vault-banner"
      data-state="unavailable"
      data-code={status.code ?? ''}
    >
      <span className="banner-icon" aria-hidden="true">
        ✗
      </span>
      <div className="banner-body">
        <p>
          <strong>
            {UNAVAILABLE_HEADLINE[status.code ?? 'KEYCHAIN_UNAVAILABLE'] ??
              UNAVAILABLE_HEADLINE.KEYCHAIN_UNAVAILABLE}
          </strong>{' '}
          <span data-testid="vault-plain">{UNAVAILABLE_WHAT_TO_DO}</span>
        </p>
        {/* Issue 26 item 6: the raw error (a D-Bus message) behind a disclosure, not in the headline. */}
        <details className="vault-raw" data-testid="vault-raw">
          <summary>What the keychain said</summary>
          <span data-testid="vault-detail">{status.detail}</span>
        </details>
        {status.kind !== null ? (
          // A vault already exists (its key was in the keychain): a passphrase vault cannot replace
          // it without orphaning every key sealed with it, so the only way is to fix the keychain.
          <p className="muted" data-testid="vault-existing">
            This profile’s vault keeps its key in the OS keychain, so a passphrase vault cannot replace it:
            the keys are sealed with that key. Bring the keychain back (unlock it, start its daemon), then
            reload.
          </p>
        ) : open ? (
          <CreatePassphraseForm onCancel={() => setOpen(false)} />
        ) : (
          <Allowed method="vault.createPassphrase">
            <p>
              <button
                type="button"
                className="btn btn-small"
                onClick={() => setOpen(true)}
                data-testid="vault-create-open"
              >
                Create a passphrase vault instead…
              </button>
            </p>
          </Allowed>
        )}
      </div>
    </div>
  );
}

function CreatePassphraseForm({ onCancel }: { onCancel: () => void }) {
  const create = useCreatePassphraseVault();
  const [passphrase, setPassphrase] = useState('');
  const [confirm, setConfirm] = useState('');
  const [attempted, setAttempted] = useState(false);
  const tooShort = passphrase.length < MIN_PASSPHRASE;
  const mismatch = confirm !== passphrase;
  const lengthError =
    (attempted || passphrase.length > 0) && tooShort
      ? `At least ${MIN_PASSPHRASE} characters (${passphrase.length} so far).`
      : undefined;
  const confirmError =
    (attempted || confirm.length >= passphrase.length) && confirm.length > 0 && mismatch
      ? 'The two passphrases differ.'
      : attempted && confirm.length === 0
        ? 'Type the passphrase again.'
        : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAttempted(true);
    if (tooShort || mismatch) return;
    create.mutate(passphrase);
  };

  return (
    <form className="vault-create" onSubmit={submit} noValidate data-testid="vault-create-form">
      <div className="vault-warning" data-testid="vault-fallback-warning">
        <strong>Fallback for machines without a keychain.</strong> Use this only where no OS keychain answers
        (a headless server, a container, a remote shell). The passphrase derives the vault key (scrypt) and is
        stored nowhere: you type it again after every restart (or set <code>DETS_VAULT_PASSPHRASE</code>), and
        if you lose it, the keys in this profile are gone for good. Where a keychain can be installed (e.g.
        gnome-keyring), install it instead.
      </div>
      <div className="form-grid-2">
        <TextField
          id="vault-passphrase"
          label="Passphrase"
          hint={`at least ${MIN_PASSPHRASE} characters`}
          error={lengthError}
          type="password"
          autoComplete="new-password"
          value={passphrase}
          onChange={setPassphrase}
        />
        <TextField
          id="vault-passphrase-confirm"
          label="Confirm"
          hint="the same again"
          error={confirmError}
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={setConfirm}
        />
      </div>
      {create.error ? (
        <ErrorPanel title="No vault created" error={create.error} testId="vault-error" />
      ) : null}
      <DialogActions
        small
        confirmFirst
        onCancel={onCancel}
        cancelTestId="vault-create-cancel"
        confirmLabel={create.isPending ? 'Creating…' : 'Create passphrase vault'}
        confirmTestId="vault-create-submit"
        confirmDisabled={create.isPending}
      />
    </form>
  );
}
