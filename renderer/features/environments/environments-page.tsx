import type { Environment } from '../../../electron/contract/schemas/service';
import { CopyButton } from '../../shared/copy-button';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { Dialog } from '../../ui/dialog';
import { PageHead } from '../../shared/page-head';
import { EnvDialog } from './env-dialog';
import { useEnvironmentsStore } from './environments-store';
import { useActivateEnvironment, useEnvironments, useRemoveEnvironment } from '../../data/environments';
import './environments.css';

const dash = <span className="muted">—</span>;

export function EnvironmentsPage() {
  const list = useEnvironments();
  const activate = useActivateEnvironment();
  const dialog = useEnvironmentsStore((s) => s.dialog);
  const open = useEnvironmentsStore((s) => s.open);
  const envs = list.data?.environments ?? [];
  const byId = (id: string) => envs.find((e) => e.id === id) ?? null;
  const state = list.error ? 'error' : list.data ? 'ready' : 'loading';

  return (
    <div className="environments-page" data-testid="environments-page" data-state={state}>
      <PageHead
        title="Environments"
        actions={
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => open({ kind: 'add' })}
            data-testid="env-add"
          >
            Add environment…
          </button>
        }
      >
        Where the Composer, the Service page and rotation send requests: the built-in sandbox, or a real
        service.
      </PageHead>

      {list.error ? (
        <ErrorPanel title="Environments unavailable" error={list.error} testId="env-list-error" />
      ) : null}
      {activate.error ? (
        <ErrorPanel title="Not switched" error={activate.error} testId="env-activate-error" />
      ) : null}

      {list.data ? (
        <section className="panel">
          <table className="data-table env-table" data-testid="env-table">
            <caption className="sr-only">Environments</caption>
            <thead>
              <tr>
                <th scope="col">environment</th>
                <th scope="col">base URL</th>
                <th scope="col">counterparty</th>
                <th scope="col">active key</th>
                <th scope="col">default obj / sub</th>
                <th scope="col">service JWKS</th>
                <th scope="col">
                  <span className="sr-only">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {envs.map((e) => (
                <EnvRow
                  key={e.id}
                  env={e}
                  active={e.id === list.data?.active_id}
                  onActivate={() => activate.mutate(e.id)}
                  activating={activate.isPending}
                />
              ))}
            </tbody>
          </table>
        </section>
      ) : state === 'loading' ? (
        <p className="muted">Loading environments…</p>
      ) : null}

      {dialog?.kind === 'add' ? <EnvDialog env={null} /> : null}
      {dialog?.kind === 'edit' && byId(dialog.id) ? <EnvDialog env={byId(dialog.id)} /> : null}
      {dialog?.kind === 'remove' && byId(dialog.id) ? <RemoveDialog env={byId(dialog.id)!} /> : null}
    </div>
  );
}

function EnvRow({
  env: e,
  active,
  onActivate,
  activating,
}: {
  env: Environment;
  active: boolean;
  onActivate: () => void;
  activating: boolean;
}) {
  const open = useEnvironmentsStore((s) => s.open);
  return (
    <tr
      className={active ? 'is-active' : undefined}
      data-testid={`env-row-${e.id}`}
      data-env-id={e.id}
      data-kind={e.kind}
      data-active={String(active)}
    >
      <td>
        <strong>{e.name}</strong>{' '}
        <span className={`badge ${e.kind === 'sandbox' ? 'badge-pass' : 'badge-warn'}`}>{e.kind}</span>
        {active ? (
          <span className="badge badge-accent" data-testid="env-active-badge">
            active
          </span>
        ) : null}
      </td>
      <td className="mono cell-cut" title={e.base_url ?? undefined}>
        {e.base_url ?? <span className="muted">not listening</span>}
      </td>
      <td>
        {e.counterparty_guid ? (
          <span className="env-guid">
            <code data-testid="env-guid">{e.counterparty_guid}</code>
            <CopyButton text={() => e.counterparty_guid ?? ''} label="Copy" testId="copy-env-guid" />
          </span>
        ) : (
          <span className="text-warn">not set</span>
        )}
      </td>
      <td>
        {e.active_kid ? (
          <code className="text-cut" title={e.active_kid}>
            {e.active_kid}
          </code>
        ) : (
          <span className="text-warn">none</span>
        )}
      </td>
      <td
        className="mono env-defaults cell-cut"
        title={`obj ${e.default_obj ?? '—'} / sub ${e.default_sub ?? '—'}`}
      >
        {e.default_obj ?? dash} / {e.default_sub ?? dash}
      </td>
      <td className="mono env-jwks cell-cut" title={e.effective_jwks_url ?? undefined}>
        {e.effective_jwks_url ?? dash}
        {e.service_jwks_url === null && e.effective_jwks_url ? (
          <span className="muted"> (derived)</span>
        ) : null}
      </td>
      <td>
        <div className="row-actions">
          {!active ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={onActivate}
              disabled={activating}
              data-testid="env-activate"
            >
              Use
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => open({ kind: 'edit', id: e.id })}
            data-testid="env-edit"
          >
            Edit…
          </button>
          {e.kind === 'real' ? (
            <button
              type="button"
              className="btn btn-small btn-quiet-danger"
              onClick={() => open({ kind: 'remove', id: e.id })}
              data-testid="env-remove"
            >
              Remove…
            </button>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

function RemoveDialog({ env }: { env: Environment }) {
  const close = useEnvironmentsStore((s) => s.close);
  const remove = useRemoveEnvironment();
  return (
    <Dialog title={`Remove ${env.name}?`} onClose={close} testId="env-remove-dialog" tone="danger">
      <p>
        The console forgets this environment’s URL, counterparty GUID and defaults. Keys stay in the vault,
        and the service keeps whatever is registered there.
      </p>
      {remove.error ? (
        <ErrorPanel title="Not removed" error={remove.error} testId="env-remove-error" />
      ) : null}
      <DialogActions
        small
        danger
        onCancel={close}
        cancelTestId="env-remove-cancel"
        cancelAutoFocus
        confirmLabel={remove.isPending ? 'Removing…' : 'Remove'}
        confirmTestId="env-remove-confirm"
        confirmDisabled={remove.isPending}
        onConfirm={() => remove.mutate(env.id, { onSuccess: close })}
      />
    </Dialog>
  );
}
