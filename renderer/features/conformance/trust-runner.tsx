import { ErrorPanel } from '../../shared/error-panel';
import { usePutBackBankJwks, useTrustRunnerJwks } from '../../data/conformance';
import { Allowed } from '../../shared/allowed';

/**
 * One click to make the console's own bank endpoints trust the runner's JWKS (issue 13 item 6),
 * for a run whose bank under test is the console's bank. It says what it changed, and puts the
 * previous URL back on request.
 */
export function TrustRunnerJwks({ port, disabled }: { port: number | null; disabled: boolean }) {
  const trust = useTrustRunnerJwks();
  const putBack = usePutBackBankJwks();
  const change = trust.data;
  const restored = putBack.data;
  return (
    <div className="cf-trust" data-testid="conformance-trust">
      <Allowed method="conformance.trustRunnerJwks">
        <button
          type="button"
          className="btn btn-small"
          disabled={disabled || port === null || trust.isPending}
          title={
            port === null
              ? 'Give a fixed JWKS port first: a free port is only known once the run starts'
              : 'Set the console’s own bank endpoints to fetch the service’s keys from the runner’s JWKS'
          }
          onClick={() => {
            putBack.reset();
            if (port !== null) trust.mutate(port);
          }}
          data-testid="conformance-trust-runner"
        >
          Trust it in the console’s bank
        </button>
      </Allowed>
      {change && !restored ? (
        <p className="cf-note" role="status" data-testid="conformance-trust-result">
          The console’s bank now fetches the service’s keys from <code>{change.url}</code>
          {change.previous_url && change.previous_url !== change.url ? (
            <>
              {' '}
              instead of <code data-testid="conformance-trust-previous">{change.previous_url}</code>
            </>
          ) : change.previous_url === null ? (
            ' (it had no service JWKS URL)'
          ) : (
            ' (unchanged)'
          )}
          .{' '}
          <Allowed method="bank.setServiceJwksUrl">
            <button
              type="button"
              className="btn btn-small"
              disabled={putBack.isPending}
              onClick={() => putBack.mutate(change.previous_setting)}
              data-testid="conformance-trust-undo"
            >
              Put back
            </button>
          </Allowed>
        </p>
      ) : null}
      {restored ? (
        <p className="cf-note" role="status" data-testid="conformance-trust-restored">
          Put back: the console’s bank fetches the service’s keys from{' '}
          <code>{restored.url ?? 'nowhere (no service JWKS URL)'}</code>
          {restored.setting === null ? ', as the environment says' : ''}.
        </p>
      ) : null}
      {trust.error ? (
        <ErrorPanel title="The bank was not changed" error={trust.error} testId="conformance-trust-error" />
      ) : null}
      {putBack.error ? (
        <ErrorPanel title="Could not put it back" error={putBack.error} testId="conformance-trust-error" />
      ) : null}
    </div>
  );
}
