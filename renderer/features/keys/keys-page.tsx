import { useEffect } from 'react';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import { CopyField } from '../../ui/copy-field';
import { ErrorPanel } from '../../shared/error-panel';
import { Page } from '../../ui/page';
import { useActiveEnvironment } from '../../data/environments';
import { useMayCall } from '../../data/app';
import { DeleteDialog } from './delete-dialog';
import { ExportDialog } from './export-dialog';
import { ExternalDialog } from './external-dialog';
import { GenerateDialog } from './generate-dialog';
import { ImportDialog } from './import-dialog';
import { KeyTable } from './key-table';
import { useKeysStore } from './keys-store';
import { PartialRegistrationError, useKeys, useRegisterWithSandbox, useUpdateKey } from '../../data/keys';
import './keys.css';
import { Allowed } from '../../shared/allowed';

type RegisterResultData = NonNullable<ReturnType<typeof useRegisterWithSandbox>['data']>;

/** The vault's signing keys: generate, import, export, register with the sandbox, retire. */
export function KeysPage() {
  // The "just created" highlight is for this visit only.
  useEffect(() => () => useKeysStore.getState().setHighlight(null), []);
  const keys = useKeys();
  const env = useActiveEnvironment();
  const dialog = useKeysStore((s) => s.dialog);
  const open = useKeysStore((s) => s.open);
  // On a team hub, only an admin holds keys (contract team-roles.ts): the page hides what the role may not do.
  const mayGenerate = useMayCall('keys.generate');
  const mayImport = useMayCall('keys.import');
  const mayAddExternal = useMayCall('keys.addExternal');
  // Registering onboards in the sandbox and saves the environment (env.save: an admin's).
  const mayRegister = useMayCall('env.save');
  const register = useRegisterWithSandbox();
  const update = useUpdateKey();
  const registered = register.data;
  const canRegister = env?.kind === 'sandbox' && !env.counterparty_guid;
  const state = keys.error ? 'error' : keys.data ? 'ready' : 'loading';

  const onStatus = (key: KeyInfo, status: KeyInfo['status']) => update.mutate({ kid: key.kid, status });

  return (
    <Page
      className="keys-page"
      testId="keys-page"
      state={state}
      title="Keys"
      actions={
        <>
          {mayImport ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => open({ kind: 'import' })}
              data-testid="keys-import"
            >
              Import…
            </button>
          ) : null}
          {mayAddExternal ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => open({ kind: 'external' })}
              data-testid="keys-external"
            >
              Add a key held elsewhere…
            </button>
          ) : null}
          {mayGenerate ? (
            <button
              type="button"
              className="btn btn-small btn-primary"
              onClick={() => open({ kind: 'generate' })}
              data-testid="keys-generate"
            >
              Generate key…
            </button>
          ) : null}
        </>
      }
      intro="Your bank’s signing keys. Private parts stay sealed in the vault, or in the HSM, KMS or Vault that holds them; this page sees only public JWKs and fingerprints."
    >
      {keys.error ? (
        <ErrorPanel title="Keys unavailable" error={keys.error} testId="keys-error">
          <p className="muted">
            {keys.error.message.includes('vault') || keys.error.message.includes('keychain')
              ? 'See the vault message above.'
              : 'The rest of the console still works.'}
          </p>
        </ErrorPanel>
      ) : null}

      {registered ? <RegisterResult registered={registered} /> : null}
      {register.error ? (
        <ErrorPanel
          title={
            register.error instanceof PartialRegistrationError
              ? 'Registered, but the environment was not updated'
              : 'Not registered'
          }
          error={register.error}
          testId="register-error"
        />
      ) : null}
      {update.error ? (
        <ErrorPanel title="Status not changed" error={update.error} testId="key-update-error" />
      ) : null}

      {canRegister && keys.data && keys.data.length > 0 && !registered ? (
        <p className="keys-hint" data-testid="register-hint">
          The sandbox does not know your bank yet: <strong>Register with the sandbox</strong> on a key
          onboards its public JWK as a new counterparty and makes it the sandbox environment’s key.
        </p>
      ) : null}

      {keys.data ? (
        keys.data.length === 0 ? (
          <KeysEmpty onOpen={open} />
        ) : (
          <section className="panel">
            <KeyTable
              keys={keys.data}
              env={env}
              onRegister={canRegister && mayRegister && env ? (key) => register.mutate({ key, env }) : null}
              registering={register.isPending ? (register.variables?.key.kid ?? null) : null}
              onStatus={onStatus}
              statusPending={update.isPending ? (update.variables?.kid ?? null) : null}
            />
          </section>
        )
      ) : state === 'loading' ? (
        <p className="muted">Loading keys…</p>
      ) : null}

      {dialog?.kind === 'generate' ? <GenerateDialog /> : null}
      {dialog?.kind === 'import' ? <ImportDialog /> : null}
      {dialog?.kind === 'external' ? <ExternalDialog /> : null}
      {dialog?.kind === 'export' ? <ExportDialog kid={dialog.kid} /> : null}
      {dialog?.kind === 'delete' ? <DeleteDialog kid={dialog.kid} /> : null}
    </Page>
  );
}

/** The sandbox registration's outcome: the new counterparty GUID and where to go next. */
function RegisterResult({ registered }: { registered: RegisterResultData }) {
  return (
    <div className="banner banner-pass" role="status" data-testid="register-result">
      <span className="banner-icon" aria-hidden="true">
        ✓
      </span>
      <div className="banner-body">
        <p>
          <strong>
            Registered <code>{registered.kid}</code> with the sandbox.
          </strong>{' '}
          Counterparty GUID{' '}
          <CopyField
            value={registered.counterparty_guid}
            label="Copy GUID"
            testId="register-guid"
            copyTestId="copy-register-guid"
          />
        </p>
        <p className="muted">
          The sandbox environment now uses this counterparty, with <code>{registered.kid}</code> as its active
          key. Next:{' '}
          <a href="#/composer" data-testid="register-next-composer">
            compose a token
          </a>{' '}
          or{' '}
          <a href="#/service" data-testid="register-next-service">
            authenticate
          </a>
          .
        </p>
      </div>
    </div>
  );
}

/** No key yet: what a key is for, and the two ways to get one. */
function KeysEmpty({ onOpen }: { onOpen: (dialog: { kind: 'generate' | 'import' }) => void }) {
  const open = onOpen;
  return (
    <div className="empty" data-testid="keys-empty">
      <h2>No signing key yet</h2>
      <p>
        Every request to the service carries a JWT signed with your bank’s private key (spec 5). Generate one
        here (RSA, RS256, 2048 bits unless you choose otherwise) or import the one your bank already uses.
        Then register its public JWK: with the sandbox in one click, or through your real environment’s
        onboarding.
      </p>
      <Allowed method="keys.generate">
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => open({ kind: 'generate' })}
          data-testid="keys-generate-empty"
        >
          Generate a key
        </button>
      </Allowed>{' '}
      <Allowed method="keys.import">
        <button
          type="button"
          className="btn"
          onClick={() => open({ kind: 'import' })}
          data-testid="keys-import-empty"
        >
          Import a key
        </button>
      </Allowed>
    </div>
  );
}
