import { CutValue } from '../../shared/cut-value';
import { statusIn } from '../../../electron/contract/key-status';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Environment } from '../../../electron/contract/schemas/service';
import { CopyButton } from '../../shared/copy-button';
import { DataTable, RowButton, type Column } from '../../ui/data-table';
import { shortGuid } from '../../shared/format';
import { Allowed } from '../../shared/allowed';
import { useMayCall } from '../../data/app';
import { expiryLevel, expiryWords, EXPIRY_WARNING_DAYS } from './expiry';
import { useKeysStore } from './keys-store';

const STATUSES: Array<{ value: KeyInfo['status']; title: string }> = [
  { value: 'active', title: 'signs tokens now' },
  { value: 'next', title: 'generated for the next rotation, not signing yet' },
  { value: 'retired', title: 'no longer signs; kept so old tokens can still be explained' },
];

export interface KeyTableProps {
  keys: KeyInfo[];
  env: Environment | null;
  /** Set when "Register with the sandbox" applies (sandbox active, no counterparty yet). */
  onRegister: ((key: KeyInfo) => void) | null;
  registering: string | null;
  onStatus: (key: KeyInfo, status: KeyInfo['status']) => void;
  statusPending: string | null;
}

/** Every signing key, one row each: what it is, whether it signs, when it expires, what to do with it. */
export function KeyTable({ keys, env, onRegister, registering, onStatus, statusPending }: KeyTableProps) {
  const open = useKeysStore((s) => s.open);
  const highlight = useKeysStore((s) => s.highlight);
  const columns: Array<Column<KeyInfo>> = [
    { header: 'kid', cell: (k) => <KidCell k={k} env={env} />, cellProps: () => ({ className: 'key-kid' }) },
    { header: 'alg', cell: (k) => <AlgCell k={k} /> },
    { header: 'bits', cell: (k) => k.bits, cellProps: () => ({ className: 'num' }) },
    { header: 'label', cell: (k) => <LabelCell k={k} />, cellProps: labelCellProps },
    {
      header: 'status',
      cell: (k) => <StatusSelect k={k} pending={statusPending === k.kid} onStatus={onStatus} />,
    },
    // Issue 26 (DESIGN.md "Environments"): a key's status belongs to an environment.
    { header: 'environments', cell: (k) => <EnvironmentStatuses k={k} env={env} /> },
    {
      header: 'expires',
      cell: (k) => <ExpiryCell k={k} />,
      cellProps: (k) => ({
        className: `key-expiry key-expiry-${expiryLevel(k.expires_in_days)}`,
        'data-testid': 'key-expiry',
      }),
    },
    { header: 'fingerprint', cell: (k) => <FingerprintCell k={k} /> },
  ];
  return (
    <DataTable
      rows={keys}
      columns={columns}
      rowKey={(k) => k.kid}
      className="key-table"
      testId="key-table"
      caption="Signing keys"
      rowProps={(k) => ({
        className: `key-row ${highlight === k.kid ? 'is-new' : ''} key-status-${k.status}`,
        'data-testid': `key-row-${k.kid}`,
        'data-kid': k.kid,
        'data-status': (env && statusIn(env, k.kid)) ?? k.status,
        'data-expiry': expiryLevel(k.expires_in_days),
      })}
      actions={(k) => (
        <>
          <RowButton onClick={() => open({ kind: 'export', kid: k.kid })} testId="key-export">
            Export…
          </RowButton>
          {onRegister ? (
            <RowButton
              onClick={() => onRegister(k)}
              disabled={registering !== null}
              title="Onboard this key's public JWK in the sandbox and make it the sandbox environment's key"
              tone="primary"
              testId="key-register-sandbox"
            >
              {registering === k.kid ? 'Registering…' : 'Register with the sandbox'}
            </RowButton>
          ) : null}
          <Allowed method="keys.delete">
            <RowButton onClick={() => open({ kind: 'delete', kid: k.kid })} tone="danger" testId="key-delete">
              Delete…
            </RowButton>
          </Allowed>
        </>
      )}
    />
  );
}

function KidCell({ k, env }: { k: KeyInfo; env: Environment | null }) {
  return (
    <>
      <CutValue value={k.kid} what="kid" testId="key-kid" />
      {env?.active_kid === k.kid ? (
        <span
          className="badge badge-accent"
          title={`The key ${env.name} signs with`}
          data-testid="key-in-env"
        >
          {env.name} key
        </span>
      ) : null}
    </>
  );
}

/** The alg, and for a key held elsewhere a tag naming the command that signs with it. */
function AlgCell({ k }: { k: KeyInfo }) {
  return (
    <>
      {k.alg}
      {k.sign_command ? (
        <span
          className="badge badge-skip key-held-elsewhere"
          title={`Held elsewhere: signed by ${k.sign_command.join(' ')}`}
          data-testid="key-held-elsewhere"
        >
          held elsewhere
        </span>
      ) : null}
    </>
  );
}

function labelCellProps(k: KeyInfo) {
  return {
    className: 'key-label cell-cut',
    title: [k.label, k.counterparty_guid && `counterparty ${k.counterparty_guid}`]
      .filter(Boolean)
      .join(' · '),
  };
}

function LabelCell({ k }: { k: KeyInfo }) {
  return (
    <>
      {k.label || <span className="muted">—</span>}
      {k.counterparty_guid ? (
        <span className="key-counterparty muted" title={`counterparty ${k.counterparty_guid}`}>
          {' '}
          · <code>{shortGuid(k.counterparty_guid)}</code>
        </span>
      ) : null}
    </>
  );
}

function StatusSelect({
  k,
  pending,
  onStatus,
}: {
  k: KeyInfo;
  pending: boolean;
  onStatus: KeyTableProps['onStatus'];
}) {
  // A role that may not change a key's status sees it as text (issue 30: actions hidden by role).
  const mayUpdate = useMayCall('keys.update');
  if (!mayUpdate)
    return (
      <span className={`status-select-${k.status}`} data-testid="key-status-text">
        {k.status}
      </span>
    );
  return (
    <select
      className={`input status-select status-select-${k.status}`}
      value={k.status}
      aria-label={`Status of ${k.kid}`}
      title={STATUSES.find((s) => s.value === k.status)?.title}
      disabled={pending}
      onChange={(e) => onStatus(k, e.target.value as KeyInfo['status'])}
      data-testid="key-status"
    >
      {STATUSES.map((s) => (
        <option key={s.value} value={s.value}>
          {s.value}
        </option>
      ))}
    </select>
  );
}

/** The key's status in each environment that uses it, the header's environment marked. */
function EnvironmentStatuses({ k, env }: { k: KeyInfo; env: Environment | null }) {
  const list = k.environments ?? [];
  if (list.length === 0) {
    return (
      <span className="muted" title="No environment uses this key: its status above is the profile's">
        none
      </span>
    );
  }
  return (
    <ul className="key-env-statuses">
      {list.map((e) => (
        <li
          key={e.environment}
          className={`badge ${e.status === 'active' ? 'badge-pass' : 'badge-skip'} ${env?.id === e.environment ? 'is-current' : ''}`}
          title={`${e.status} in ${e.name}${env?.id === e.environment ? ' (the environment the header shows)' : ''}`}
          data-testid="key-env-status"
          data-environment={e.environment}
          data-status={e.status}
        >
          {e.name}: {e.status}
        </li>
      ))}
    </ul>
  );
}

function ExpiryCell({ k }: { k: KeyInfo }) {
  const level = expiryLevel(k.expires_in_days);
  if (!k.expires) return <span className="muted">no expiry</span>;
  const warn = level === 'soon' || level === 'expired';
  return (
    <>
      <span className="mono">{k.expires}</span>{' '}
      <span
        className={`badge ${level === 'expired' ? 'badge-fail' : level === 'soon' ? 'badge-warn' : 'badge-skip'}`}
        title={
          level === 'soon'
            ? `Within ${EXPIRY_WARNING_DAYS} days: register the next key (Service → Rotation) before it expires.`
            : level === 'expired'
              ? 'Expired: the service refuses tokens signed with it. Rotate to a new key.'
              : undefined
        }
        data-testid="key-expiry-warning"
        data-level={level}
      >
        {warn ? '! ' : ''}
        {expiryWords(k.expires_in_days)}
      </span>
      {warn && k.status === 'active' ? (
        <>
          {' '}
          <a
            href="#/service"
            className="key-rotate-link"
            title="Service page → Rotation: generate the next key, register it, prove it, switch"
            data-testid="key-rotate-link"
          >
            rotate
          </a>
        </>
      ) : null}
    </>
  );
}

function FingerprintCell({ k }: { k: KeyInfo }) {
  return (
    <span className="key-fingerprint">
      <code title={`SHA-256 thumbprint (RFC 7638): ${k.fingerprint}`} data-testid="key-fingerprint">
        {k.fingerprint.slice(0, 10)}…
      </code>
      <CopyButton text={() => k.fingerprint} label="Copy" testId="copy-fingerprint" />
    </span>
  );
}
