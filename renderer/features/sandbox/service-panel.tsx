import { useEffect, useRef } from 'react';
import type { SandboxStatus } from '../../../electron/contract/schemas/sandbox';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { formatDuration } from '../../shared/format';
import { DataTable, timeColumn, type Column } from '../../ui/data-table';
import { derivedJwksUrl as jwksUrlOf } from '../../../electron/contract/schemas/service-paths';
import { useSandboxStore } from './sandbox-store';
import { useRotateKey } from '../../data/sandbox';
import { Allowed } from '../../shared/allowed';

type PublishedKey = SandboxStatus['keys'][number];

const KEY_COLUMNS: ReadonlyArray<Column<PublishedKey>> = [
  { header: 'kid', cell: (k) => <code>{k.kid}</code> },
  {
    header: 'status',
    cell: (k) => <span className={`badge badge-${k.status === 'active' ? 'pass' : 'warn'}`}>{k.status}</span>,
  },
  timeColumn<PublishedKey>('created', (k) => k.created_at),
  timeColumn<PublishedKey>('retires', (k) => k.retires_at),
];

/** Shown when the sandbox's signing key lives only in this process (no vault to seal it in). */
export function MemoryKeyBanner() {
  return (
    <div className="banner banner-warn" role="status" data-testid="key-memory-banner">
      <span className="banner-icon" aria-hidden="true">
        !
      </span>
      <p>
        <strong>No vault yet: a restart publishes a new key.</strong> The sandbox’s signing key lives in
        memory only, so after a restart its JWKS holds a new <code>kid</code> and tokens signed before no
        longer verify. A bank that refetches the JWKS on an unknown <code>kid</code> copes; one that cached it
        forever does not.
      </p>
    </div>
  );
}

/** Where the sandbox is, the keys it publishes, and key rotation. */
export function ServicePanel({ status }: { status: SandboxStatus }) {
  const confirming = useSandboxStore((s) => s.confirmingRotate);
  const setConfirming = useSandboxStore((s) => s.setConfirmingRotate);
  const rotateButton = useRef<HTMLButtonElement>(null);
  const url = status.url;
  return (
    <section className="panel" aria-labelledby="sandbox-service-title" data-testid="sandbox-service">
      <h2 id="sandbox-service-title" className="panel-title">
        Service <span className="panel-note">what your bank talks to</span>
      </h2>
      <div className="panel-body">
        {url ? (
          <dl className="sandbox-urls">
            <dt>Base URL</dt>
            <dd>
              <code data-testid="sandbox-url">{url}</code>
              <CopyButton text={() => url} testId="copy-sandbox-url" />
            </dd>
            <dt>JWKS</dt>
            <dd>
              <code data-testid="sandbox-jwks-url">{jwksUrlOf(url)}</code>
              <CopyButton text={() => jwksUrlOf(url)} testId="copy-jwks-url" />
            </dd>
          </dl>
        ) : (
          <p className="muted" data-testid="sandbox-not-listening">
            The sandbox is not listening in this process (started with <code>--no-sandbox</code>, or it could
            not start). Sign-ins and notifications below still run; banks cannot reach it.
          </p>
        )}
        <p className="field-note muted">
          Your bank verifies every <code>X-Session-ID</code> the sandbox sends against this JWKS (spec 4.4
          #8).
        </p>
      </div>

      <DataTable
        rows={status.keys}
        columns={KEY_COLUMNS}
        rowKey={(k) => k.kid}
        rowProps={(k) => ({ 'data-testid': `sandbox-key-${k.kid}`, 'data-status': k.status })}
        caption="Signing keys published in the sandbox’s JWKS"
        testId="sandbox-keys"
      />

      <Allowed method="sandbox.rotateKey">
        <div className="panel-body panel-actions">
          <button
            type="button"
            ref={rotateButton}
            className="btn btn-small"
            onClick={() => setConfirming(true)}
            disabled={confirming}
            aria-expanded={confirming}
            aria-controls="rotate-confirm-dialog"
            data-testid="rotate-key"
          >
            Rotate key…
          </button>
          {confirming ? (
            <RotateConfirm
              graceSeconds={status.settings.key_grace_seconds}
              onDone={() => {
                setConfirming(false);
                // Back to where the keyboard was (the button is enabled again after this render).
                setTimeout(() => rotateButton.current?.focus(), 0);
              }}
            />
          ) : null}
        </div>
      </Allowed>
    </section>
  );
}

function RotateConfirm({ graceSeconds, onDone }: { graceSeconds: number; onDone: () => void }) {
  const rotate = useRotateKey();
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => confirmButton.current?.focus(), []);
  return (
    <div
      className="confirm"
      id="rotate-confirm-dialog"
      role="alertdialog"
      aria-labelledby="rotate-title"
      aria-describedby="rotate-what"
      data-testid="rotate-confirm-dialog"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
      }}
    >
      <strong id="rotate-title">Rotate the sandbox’s signing key?</strong>
      <p id="rotate-what">
        A new key with a new <code>kid</code> signs every <code>session_token</code> and{' '}
        <code>X-Session-ID</code> from now on. The current key stays in the JWKS as <em>grace</em> for{' '}
        {formatDuration(graceSeconds)}, then disappears. A bank that caches the JWKS forever will start
        failing on the new <code>kid</code>: that is the point. Its callbacks must refetch the JWKS when they
        meet a <code>kid</code> they do not know.
      </p>
      {rotate.error ? (
        <ErrorPanel title="Rotation failed" error={rotate.error} testId="rotate-error" />
      ) : null}
      <div className="confirm-actions">
        <button
          type="button"
          ref={confirmButton}
          className="btn btn-small btn-primary"
          disabled={rotate.isPending}
          onClick={() => rotate.mutate(undefined, { onSuccess: onDone })}
          data-testid="rotate-confirm"
        >
          {rotate.isPending ? 'Rotating…' : 'Rotate now'}
        </button>
        <button type="button" className="btn btn-small" onClick={onDone} data-testid="rotate-cancel">
          Cancel
        </button>
      </div>
    </div>
  );
}
