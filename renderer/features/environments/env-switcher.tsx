import { useMayCall } from '../../data/app';
import { useActivateEnvironment, useEnvironments } from '../../data/environments';

/**
 * Header: which environment the Composer, the Service page and rotation talk to, switchable in
 * place. A real environment is marked as such, so nobody sends to one thinking it is the sandbox.
 */
export function EnvSwitcher() {
  const list = useEnvironments();
  const activate = useActivateEnvironment();
  const active = list.data?.environments.find((e) => e.id === list.data?.active_id) ?? null;
  const kind = active?.kind ?? 'none';
  // A role that may not switch environments (team-roles.ts: env.activate) sees the active one as text.
  const mayActivate = useMayCall('env.activate');

  return (
    <div
      className={`env env-${kind}`}
      data-testid="environment"
      data-env-id={active?.id ?? ''}
      data-kind={kind}
      title={
        active
          ? `${active.name}: ${active.base_url ?? 'not listening'}${active.counterparty_guid ? ` · counterparty ${active.counterparty_guid}` : ' · no counterparty GUID yet'}`
          : 'Environments: the sandbox and your real ones'
      }
    >
      <label className="env-label" htmlFor="env-select">
        Environment
      </label>
      {list.data && !mayActivate ? (
        <span className="env-value" data-testid="env-name">
          {active?.name ?? list.data.active_id}
        </span>
      ) : list.data ? (
        <select
          id="env-select"
          className="env-select"
          value={list.data.active_id}
          disabled={activate.isPending}
          onChange={(e) => activate.mutate(e.target.value)}
          data-testid="env-select"
        >
          {list.data.environments.map((e) => (
            <option key={e.id} value={e.id}>
              {e.name}
              {e.kind === 'real' ? ' (real)' : ''}
            </option>
          ))}
        </select>
      ) : list.error ? (
        <span className="env-value text-fail" title={list.error.message} data-testid="env-error">
          unavailable
        </span>
      ) : (
        <span className="env-value">loading…</span>
      )}
      {active ? (
        <span className={`env-kind env-kind-${active.kind}`} data-testid="env-kind">
          {active.kind}
        </span>
      ) : null}
      {activate.error ? (
        <span className="text-fail env-error" role="alert" data-testid="env-activate-error">
          {activate.error.message}
        </span>
      ) : null}
    </div>
  );
}
