import { useState, type FormEvent } from 'react';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { Dialog } from '../../ui/dialog';
import { useEnvironments } from '../../data/environments';
import { useKeysStore } from './keys-store';
import { useDeleteKey } from '../../data/keys';

/** Deleting a key is final: the engineer types its kid to confirm. */
export function DeleteDialog({ kid }: { kid: string }) {
  const close = useKeysStore((s) => s.close);
  const remove = useDeleteKey();
  const envs = useEnvironments().data?.environments ?? [];
  const usedBy = envs.filter((e) => e.active_kid === kid);
  const [typed, setTyped] = useState('');
  const matches = typed === kid;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (matches) remove.mutate(kid, { onSuccess: close });
  };

  return (
    <Dialog
      title={
        <>
          Delete key <code>{kid}</code>?
        </>
      }
      onClose={close}
      testId="delete-dialog"
      tone="danger"
    >
      <form onSubmit={submit} noValidate className="dialog-form">
        <p>
          The private key is removed from the vault for good: nothing can sign with this <code>kid</code>{' '}
          again. Wherever its public JWK is registered, tokens already signed with it keep verifying until
          they expire.
        </p>
        {usedBy.length > 0 ? (
          <p className="text-warn" data-testid="delete-in-use">
            It is the active key of {usedBy.map((e) => e.name).join(', ')}: that environment will have no key
            to sign with.
          </p>
        ) : null}
        <div className="field">
          <label htmlFor="delete-confirm-input" className="field-label">
            Type the kid to confirm
          </label>
          <input
            id="delete-confirm-input"
            className="input mono"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            placeholder={kid}
            spellCheck={false}
            autoComplete="off"
            data-testid="delete-confirm-input"
            data-autofocus
          />
        </div>
        {remove.error ? <ErrorPanel title="Not deleted" error={remove.error} testId="delete-error" /> : null}
        <DialogActions
          small
          danger
          onCancel={close}
          cancelTestId="delete-cancel"
          confirmLabel={remove.isPending ? 'Deleting…' : 'Delete key'}
          confirmTestId="delete-confirm"
          confirmDisabled={!matches || remove.isPending}
        />
      </form>
    </Dialog>
  );
}
