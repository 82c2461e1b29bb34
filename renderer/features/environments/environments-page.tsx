import type { Environment } from '../../../electron/contract/schemas/service';
import { CopyButton } from '../../shared/copy-button';
import { DataTable, RowButton, type Column } from '../../ui/data-table';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { Dialog } from '../../ui/dialog';
import { PageHead } from '../../shared/page-head';
import { EnvDialog } from './env-dialog';
import { useEnvironmentsStore } from './environments-store';
import { useActivateEnvironment, useEnvironments, useRemoveEnvironment } from '../../data/environments';
import './environments.css';
import { Allowed } from '../../shared/allowed';
import { CutValue } from '../../shared/cut-value';

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
          <Allowed method="env.save">
            <RowButton onClick={() => open({ kind: 'add' })} tone="primary" testId="env-add">
              Add environment…
            </RowButton>
          </Allowed>
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
          <EnvTable
            envs={envs}
            activeId={list.data.active_id}
            onActivate={(id) => activate.mutate(id)}
            activating={activate.isPending}
          />
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

/** The columns of the environments table; the active one is badged. */
function envColumns(activeId: string): Array<Column<Environment>> {
  return [
    { header: 'environment', cell: (e) => <EnvName e={e} active={e.id === activeId} /> },
    {
      header: 'base URL',
      cell: (e) => e.base_url ?? <span className="muted">not listening</span>,
      cellProps: (e) => ({ className: 'mono cell-cut', title: e.base_url ?? undefined }),
    },
    {
      header: 'counterparty',
      cell: (e) =>
        e.counterparty_guid ? (
          <span className="env-guid">
            <code data-testid="env-guid">{e.counterparty_guid}</code>
            <CopyButton text={() => e.counterparty_guid ?? ''} label="Copy" testId="copy-env-guid" />
          </span>
        ) : (
          <span className="text-warn">not set</span>
        ),
    },
    {
      header: 'active key',
      cell: (e) =>
        e.active_kid ? (
          <CutValue value={e.active_kid} what="kid" testId="env-row-kid" />
        ) : (
          <span className="text-warn">none</span>
        ),
    },
    {
      header: 'default obj / sub',
      cell: (e) => (
        <>
          {e.default_obj ?? dash} / {e.default_sub ?? dash}
        </>
      ),
      cellProps: (e) => ({
        className: 'mono env-defaults cell-cut',
        title: `obj ${e.default_obj ?? '—'} / sub ${e.default_sub ?? '—'}`,
      }),
    },
    {
      header: 'service JWKS',
      cell: (e) => (
        <>
          {e.effective_jwks_url ?? dash}
          {e.service_jwks_url === null && e.effective_jwks_url ? (
            <span className="muted"> (derived)</span>
          ) : null}
        </>
      ),
      cellProps: (e) => ({ className: 'mono env-jwks cell-cut', title: e.effective_jwks_url ?? undefined }),
    },
  ];
}

function EnvName({ e, active }: { e: Environment; active: boolean }) {
  return (
    <>
      <strong>{e.name}</strong>{' '}
      <span className={`badge ${e.kind === 'sandbox' ? 'badge-pass' : 'badge-warn'}`}>{e.kind}</span>
      {active ? (
        <span className="badge badge-accent" data-testid="env-active-badge">
          active
        </span>
      ) : null}
    </>
  );
}

function EnvTable({
  envs,
  activeId,
  onActivate,
  activating,
}: {
  envs: Environment[];
  activeId: string;
  onActivate: (id: string) => void;
  activating: boolean;
}) {
  const open = useEnvironmentsStore((s) => s.open);
  return (
    <DataTable
      rows={envs}
      rowKey={(e) => e.id}
      columns={envColumns(activeId)}
      className="env-table"
      testId="env-table"
      caption="Environments"
      rowProps={(e) => ({
        className: e.id === activeId ? 'is-active' : undefined,
        'data-testid': `env-row-${e.id}`,
        'data-env-id': e.id,
        'data-kind': e.kind,
        'data-active': String(e.id === activeId),
      })}
      actions={(e) => (
        <>
          <Allowed method="env.activate">
            {e.id !== activeId ? (
              <RowButton onClick={() => onActivate(e.id)} disabled={activating} testId="env-activate">
                Use
              </RowButton>
            ) : null}
          </Allowed>
          <Allowed method="env.save">
            <RowButton onClick={() => open({ kind: 'edit', id: e.id })} testId="env-edit">
              Edit…
            </RowButton>
          </Allowed>
          <Allowed method="env.remove">
            {e.kind === 'real' ? (
              <RowButton onClick={() => open({ kind: 'remove', id: e.id })} tone="danger" testId="env-remove">
                Remove…
              </RowButton>
            ) : null}
          </Allowed>
        </>
      )}
    />
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
