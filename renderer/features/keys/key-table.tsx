import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Environment } from '../../../electron/contract/schemas/service';
import { CopyButton } from '../../shared/copy-button';
import { shortGuid } from '../../shared/format';
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
  return (
    <table className="data-table key-table" data-testid="key-table">
      <caption className="sr-only">Signing keys</caption>
      <thead>
        <tr>
          <th scope="col">kid</th>
          <th scope="col">alg</th>
          <th scope="col">bits</th>
          <th scope="col">label</th>
          <th scope="col">status</th>
          <th scope="col">expires</th>
          <th scope="col">fingerprint</th>
          <th scope="col">
            <span className="sr-only">actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => {
          const level = expiryLevel(k.expires_in_days);
          const inEnv = env?.active_kid === k.kid;
          return (
            <tr
              key={k.kid}
              className={`key-row ${highlight === k.kid ? 'is-new' : ''} key-status-${k.status}`}
              data-testid={`key-row-${k.kid}`}
              data-kid={k.kid}
              data-status={k.status}
              data-expiry={level}
            >
              <td className="key-kid">
                <code className="text-cut" title={k.kid} data-testid="key-kid">
                  {k.kid}
                </code>
                {inEnv ? (
                  <span
                    className="badge badge-accent"
                    title={`The key ${env?.name ?? 'the active environment'} signs with`}
                    data-testid="key-in-env"
                  >
                    {env?.name ?? 'env'} key
                  </span>
                ) : null}
              </td>
              <td>{k.alg}</td>
              <td className="num">{k.bits}</td>
              <td
                className="key-label cell-cut"
                title={[k.label, k.counterparty_guid && `counterparty ${k.counterparty_guid}`]
                  .filter(Boolean)
                  .join(' · ')}
              >
                {k.label || <span className="muted">—</span>}
                {k.counterparty_guid ? (
                  <span className="key-counterparty muted" title={`counterparty ${k.counterparty_guid}`}>
                    {' '}
                    · <code>{shortGuid(k.counterparty_guid)}</code>
                  </span>
                ) : null}
              </td>
              <td>
                <select
                  className={`input status-select status-select-${k.status}`}
                  value={k.status}
                  aria-label={`Status of ${k.kid}`}
                  title={STATUSES.find((s) => s.value === k.status)?.title}
                  disabled={statusPending === k.kid}
                  onChange={(e) => onStatus(k, e.target.value as KeyInfo['status'])}
                  data-testid="key-status"
                >
                  {STATUSES.map((s) => (
                    <option key={s.value} value={s.value}>
                      {s.value}
                    </option>
                  ))}
                </select>
              </td>
              <td className={`key-expiry key-expiry-${level}`} data-testid="key-expiry">
                {k.expires ? (
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
                      {level === 'soon' || level === 'expired' ? '! ' : ''}
                      {expiryWords(k.expires_in_days)}
                    </span>
                    {(level === 'soon' || level === 'expired') && k.status === 'active' ? (
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
                ) : (
                  <span className="muted">no expiry</span>
                )}
              </td>
              <td>
                <span className="key-fingerprint">
                  <code
                    title={`SHA-256 thumbprint (RFC 7638): ${k.fingerprint}`}
                    data-testid="key-fingerprint"
                  >
                    {k.fingerprint.slice(0, 10)}…
                  </code>
                  <CopyButton text={() => k.fingerprint} label="Copy" testId="copy-fingerprint" />
                </span>
              </td>
              <td>
                <div className="row-actions">
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => open({ kind: 'export', kid: k.kid })}
                    data-testid="key-export"
                  >
                    Export…
                  </button>
                  {onRegister ? (
                    <button
                      type="button"
                      className="btn btn-small btn-primary"
                      onClick={() => onRegister(k)}
                      disabled={registering !== null}
                      title="Onboard this key's public JWK in the sandbox and make it the sandbox environment's key"
                      data-testid="key-register-sandbox"
                    >
                      {registering === k.kid ? 'Registering…' : 'Register with the sandbox'}
                    </button>
                  ) : null}
                  <button
                    type="button"
                    className="btn btn-small btn-quiet-danger"
                    onClick={() => open({ kind: 'delete', kid: k.kid })}
                    data-testid="key-delete"
                  >
                    Delete…
                  </button>
                </div>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
