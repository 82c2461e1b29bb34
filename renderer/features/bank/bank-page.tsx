import { useState } from 'react';
import type { z } from 'zod';
import type { BankStatus, CustomerView } from '../../../electron/contract/schemas/bank';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { formatLocal } from '../../shared/format';
import { JwksKeyReport } from '../../shared/jwks-key-report';
import { BehavioursPanel } from './behaviours-panel';
import { CustomerDialog } from './customer-dialog';
import { ForwardPanel } from '../../shared/forward-panel';
import { PublicUrlPanel } from './public-url-panel';
import { RoutesPanel } from './routes-panel';
import { ImportCustomersDialog } from './import-dialog';
import { ExportCustomersDialog } from './export-dialog';
import { Field } from '../../shared/field';
import { PageHead } from '../../shared/page-head';
import { UrlTable, type UrlRow } from '../../shared/public-url';
import { DataTable, RowButton, type Column } from '../../ui/data-table';
import { useSandboxStatus } from '../../data/sandbox';
import {
  activeBehaviours,
  useBankStatus,
  useCustomers,
  useRemoveCustomer,
  useSetNotifyPrefix,
} from '../../data/bank';
import './bank.css';
import { Allowed } from '../../shared/allowed';
import { CutValue } from '../../shared/cut-value';

type View = z.output<typeof CustomerView>;

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** The URLs the service needs from the bank (spec 4.2 callbacks, 4.3 notifications). */
function bankUrls(status: BankStatus): UrlRow[] {
  if (!status.url) return [];
  const base = status.url;
  const prefix = status.notify_path_prefix;
  return [
    { id: 'user-auth', label: 'user_auth', url: joinUrl(base, '/user_auth') },
    { id: 'key', label: 'key', url: joinUrl(base, '/key') },
    { id: 'external-id', label: 'external_id', url: joinUrl(base, '/external_id') },
    { id: 'pay-in', label: 'notify pay-in', url: joinUrl(base, `${prefix}/pay-in`) },
    { id: 'pay-out', label: 'notify pay-out', url: joinUrl(base, `${prefix}/pay-out`) },
    { id: 'transfer', label: 'notify transfer', url: joinUrl(base, `${prefix}/transfer`) },
  ];
}

export function BankPage() {
  const status = useBankStatus();
  const s = status.data;
  const active = activeBehaviours(s);
  return (
    <div className="bank-page" data-testid="bank-page" data-state={s ? 'ready' : 'loading'}>
      <PageHead title="Bank">
        Your bank’s side, played by the console: the callbacks and notification endpoints the service calls,
        the test customers they answer from, and deliberate misbehaviour.
      </PageHead>
      {status.error ? (
        <ErrorPanel title="Bank endpoints unavailable" error={status.error} testId="bank-error" />
      ) : null}
      {active.length > 0 ? (
        <div className="banner banner-warn" role="status" data-testid="behaviours-banner">
          <span className="banner-icon" aria-hidden="true">
            !
          </span>
          <div className="banner-body">
            <strong>Behaviours ON</strong> for {active.join(', ')}: the bank endpoints answer wrongly on
            purpose. Turn them off below before judging the service.
          </div>
        </div>
      ) : null}
      {s ? (
        <div className="bank-grid">
          <div className="bank-column">
            <EndpointsPanel status={s} />
            <PublicUrlPanel />
            <JwksPanel status={s} />
            <ForwardPanel key={s.forward.url ?? 'off'} url={s.forward.url} />
            <RoutesPanel />
          </div>
          <div className="bank-column">
            <CustomersPanel />
            <BehavioursPanel key={JSON.stringify(s.behaviours)} behaviours={s.behaviours} />
          </div>
        </div>
      ) : !status.error ? (
        <p className="muted">Loading…</p>
      ) : null}
    </div>
  );
}

function EndpointsPanel({ status }: { status: BankStatus }) {
  const urls = bankUrls(status);
  return (
    <section className="panel" aria-labelledby="bank-endpoints-title">
      <h2 id="bank-endpoints-title" className="panel-title">
        Bank listener
        <span className="panel-spacer" />
        {status.url ? <CopyButton text={() => status.url!} testId="bank-url-copy" /> : null}
      </h2>
      <div className="panel-body">
        {status.url ? (
          <p>
            <code data-testid="bank-url">{status.url}</code>
          </p>
        ) : (
          <p className="muted" data-testid="bank-url-none">
            The bank listener is not running (start serve with --bank-port).
          </p>
        )}
        <NotifyPrefixField prefix={status.notify_path_prefix} />
        <p className="muted">Give the service these URLs (the sandbox uses them already):</p>
        <UrlTable
          rows={urls}
          codeTestId={(id) => `bank-url-${id}`}
          copyTestId={(id) => `bank-url-${id}-copy`}
        />
      </div>
    </section>
  );
}

const PREFIX_PRESETS = [
  { prefix: '/api/svc/notify', label: 'spec 4.3' },
  { prefix: '/api/dcm/notify', label: 'service guide' },
] as const;

/** Where notifications are received: the spec's /api/svc/notify, the guide's /api/dcm/notify, or any path. */
function NotifyPrefixField({ prefix }: { prefix: string }) {
  const [text, setText] = useState(prefix);
  const set = useSetNotifyPrefix();
  const sandboxPrefix = useSandboxStatus().data?.settings.notify_path_prefix;
  const dirty = text.trim() !== prefix;
  const save = (value: string) => {
    setText(value);
    set.mutate(value);
  };
  return (
    <div className="notify-prefix" data-testid="bank-notify-prefix">
      <Field id="bank-notify-prefix-input" label="Notification path prefix" error={set.error?.message}>
        <input
          id="bank-notify-prefix-input"
          className="input"
          value={text}
          spellCheck={false}
          onChange={(e) => {
            setText(e.target.value);
            set.reset();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && dirty) save(text.trim());
          }}
          data-testid="bank-notify-prefix-input"
        />
      </Field>
      <Allowed method="bank.setNotifyPrefix">
        <div className="form-actions">
          {PREFIX_PRESETS.map((p) => (
            <button
              key={p.prefix}
              type="button"
              className="btn btn-small"
              disabled={set.isPending || prefix === p.prefix}
              onClick={() => save(p.prefix)}
              data-testid={`bank-notify-prefix-${p.prefix.split('/')[2]}`}
              title={`Receive notifications under ${p.prefix} (${p.label})`}
            >
              {p.prefix} <span className="muted">({p.label})</span>
            </button>
          ))}
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={set.isPending || !dirty}
            onClick={() => save(text.trim())}
            data-testid="bank-notify-prefix-save"
          >
            Save
          </button>
        </div>
      </Allowed>
      {sandboxPrefix && sandboxPrefix !== prefix ? (
        <p className="field-note field-error" role="status" data-testid="bank-notify-prefix-mismatch">
          The sandbox posts notifications under {sandboxPrefix}: they will get 404 here until both use the
          same prefix (Sandbox page, settings).
        </p>
      ) : null}
    </div>
  );
}

function JwksPanel({ status }: { status: BankStatus }) {
  const j = status.jwks;
  const state = j.error ? 'error' : j.stale ? 'stale' : j.fetched_at ? 'fresh' : 'unfetched';
  return (
    <section className="panel" aria-labelledby="bank-jwks-title" data-testid="bank-jwks" data-state={state}>
      <h2 id="bank-jwks-title" className="panel-title">
        Service JWKS <span className="panel-note">what X-Session-ID tokens are verified with</span>
        <span className="panel-spacer" />
        <span
          className={`badge ${state === 'fresh' ? 'badge-pass' : state === 'unfetched' ? 'badge-skip' : 'badge-fail'}`}
          data-testid="bank-jwks-state"
        >
          {state}
        </span>
      </h2>
      <dl className="kv">
        <dt>URL</dt>
        <dd>
          {status.service_jwks_url ? (
            <CutValue value={status.service_jwks_url} what="JWKS URL" testId="bank-jwks-url" />
          ) : (
            <code data-testid="bank-jwks-url">—</code>
          )}
        </dd>
        <dt>kids</dt>
        <dd data-testid="bank-jwks-kids">
          {j.kids.length > 0 ? (
            j.kids.map((k) => <CutValue key={k} value={k} what="kid" testId="bank-jwks-kid" />)
          ) : (
            <span className="muted">none yet</span>
          )}
        </dd>
        <dt>fetched</dt>
        <dd>{formatLocal(j.fetched_at) ?? 'not yet: fetched on the first callback'}</dd>
        {j.error ? (
          <>
            <dt>error</dt>
            <dd className="text-fail" data-testid="bank-jwks-error">
              {j.error}
            </dd>
          </>
        ) : null}
        <JwksKeyReport jwks={j} testId="bank-jwks" />
      </dl>
    </section>
  );
}

const CUSTOMER_COLUMNS: ReadonlyArray<Column<View>> = [
  {
    header: 'obj · sub · name',
    cell: (c) => (
      <>
        <code>{c.obj}</code>
        <span className="customer-sub">
          {c.sub ? `sub ${c.sub}` : 'no sub'}
          {c.first_name || c.last_name ? ` · ${[c.first_name, c.last_name].filter(Boolean).join(' ')}` : ''}
        </span>
      </>
    ),
  },
  {
    header: 'external_id',
    cell: (c) => c.external_id,
    cellProps: (c) => ({ className: 'customers-extid', title: c.external_id }),
  },
  { header: 'phone', cell: (c) => c.phone },
  {
    header: 'key',
    cell: (c) => c.key_hint,
    cellProps: () => ({
      className: 'muted nowrap',
      'data-testid': 'customer-key-hint',
      title: 'The key itself is never shown',
    }),
  },
];

function CustomersPanel() {
  const customers = useCustomers();
  const remove = useRemoveCustomer();
  const [exporting, setExporting] = useState(false);
  const [editing, setEditing] = useState<View | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const list = customers.data ?? [];
  return (
    <section className="panel" aria-labelledby="customers-title" data-testid="bank-customers">
      <h2 id="customers-title" className="panel-title">
        Test customers <span className="panel-note">{list.length}</span>
        <span className="panel-spacer" />
        <Allowed method="bank.importCustomers">
          <RowButton onClick={() => setImporting(true)} testId="customers-import">
            Import…
          </RowButton>
        </Allowed>
        <Allowed method="bank.exportCustomers">
          <RowButton onClick={() => setExporting(true)} testId="customers-export">
            Export…
          </RowButton>
        </Allowed>
        <Allowed method="bank.saveCustomer">
          <RowButton onClick={() => setEditing('new')} tone="primary" testId="customer-add">
            Add customer
          </RowButton>
        </Allowed>
      </h2>
      {customers.error ? (
        <ErrorPanel title="Customers unavailable" error={customers.error} testId="customers-error" />
      ) : null}
      {exporting ? <ExportCustomersDialog onClose={() => setExporting(false)} /> : null}
      {remove.error ? (
        <ErrorPanel title="Remove failed" error={remove.error} testId="customer-remove-error" />
      ) : null}
      {list.length === 0 && customers.data ? (
        <p className="empty-note" data-testid="customers-empty">
          No test customer: /user_auth answers 404 for every obj. Add one, or import a --users file.
        </p>
      ) : null}
      {list.length > 0 ? (
        <div className="table-scroll">
          <DataTable
            rows={list}
            columns={CUSTOMER_COLUMNS}
            rowKey={(c) => c.obj}
            rowProps={(c) => ({ 'data-testid': `customer-${c.obj}`, 'data-obj': c.obj })}
            actions={(c) => (
              <>
                <Allowed method="bank.saveCustomer">
                  <RowButton onClick={() => setEditing(c)} testId="customer-edit">
                    Edit
                  </RowButton>
                </Allowed>
                <Allowed method="bank.removeCustomer">
                  <button
                    type="button"
                    className="btn btn-small btn-danger"
                    onClick={() => remove.mutate(c.obj)}
                    data-testid="customer-remove"
                  >
                    Remove
                  </button>
                </Allowed>
              </>
            )}
            className="customers-table"
          />
        </div>
      ) : null}
      {editing ? (
        <CustomerDialog editing={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      ) : null}
      {importing ? <ImportCustomersDialog onClose={() => setImporting(false)} /> : null}
    </section>
  );
}
