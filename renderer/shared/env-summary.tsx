import type { Environment } from '../../electron/contract/schemas/service';
import { shortGuid } from './format';
import './env-summary.css';

/** One line: which environment this page talks to, and what it still lacks. */
export function EnvSummary({ env }: { env: Environment | null }) {
  if (!env) return <p className="env-summary muted">Loading the active environment…</p>;
  const missing = [
    env.base_url ? null : 'a base URL',
    env.counterparty_guid ? null : 'a counterparty GUID',
    env.active_kid ? null : 'an active key',
  ].filter((m): m is string => m !== null);
  return (
    <div className="env-summary" data-testid="env-summary" data-env-id={env.id}>
      <span className="env-summary-item">
        <span className="muted">environment</span> <strong>{env.name}</strong>{' '}
        <span className={`badge ${env.kind === 'sandbox' ? 'badge-pass' : 'badge-warn'}`}>{env.kind}</span>
      </span>
      <span className="env-summary-item">
        <span className="muted">base URL</span> <code>{env.base_url ?? 'not listening'}</code>
      </span>
      <span className="env-summary-item">
        <span className="muted">counterparty</span>{' '}
        {env.counterparty_guid ? (
          <code title={env.counterparty_guid}>{shortGuid(env.counterparty_guid)}</code>
        ) : (
          <span className="text-warn">not set</span>
        )}
      </span>
      <span className="env-summary-item">
        <span className="muted">key</span>{' '}
        {env.active_kid ? <code>{env.active_kid}</code> : <span className="text-warn">none</span>}
      </span>
      <a href="#/environments" className="env-summary-edit" data-testid="env-summary-edit">
        Edit
      </a>
      {missing.length > 0 ? (
        <span className="env-summary-missing text-warn" data-testid="env-missing">
          Needs {missing.join(', ')}:{' '}
          {env.kind === 'sandbox' && !env.counterparty_guid ? (
            <>
              use{' '}
              <a href="#/keys" data-testid="env-summary-go-keys">
                Keys → Register with the sandbox
              </a>
            </>
          ) : (
            <a href="#/environments" data-testid="env-summary-go-environments">
              set it on the Environments page
            </a>
          )}
          .
        </span>
      ) : null}
    </div>
  );
}
