import { schemas } from '../../../electron/contract';
import type { Environment } from '../../../electron/contract/schemas/service';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { problemOf } from '../../shared/field-errors';
import { defaultKid } from '../../data/keys';
import { KidSelect } from '../../shared/kid-select';
import { useKeys } from '../../data/keys';
import { ExchangeDetails, ExchangeLine } from '../../shared/exchange-view';
import { useServiceStore } from './service-store';
import { useJwkOperation, type JwkOperation } from '../../data/service';
import { Allowed } from '../../shared/allowed';

/**
 * The service's key endpoints: its own JWKS (spec 4.1 #3), the JWKs registered for this
 * counterparty (the guide's GET …/jwk), registering one (the guide's POST …/jwk) and the spec's
 * PUT …/jwk/{jwk_guid} (4.1 #1, signed by the current key).
 */
export function JwkPanel({ env }: { env: Environment | null }) {
  const keys = useKeys().data ?? [];
  const storedKid = useServiceStore((s) => s.jwkKid);
  const setKid = useServiceStore((s) => s.setJwkKid);
  const jwkGuid = useServiceStore((s) => s.jwkGuid);
  const setJwkGuid = useServiceStore((s) => s.setJwkGuid);
  const op = useJwkOperation();
  // A key waiting for its turn (status next) is the one to register; else the environment's.
  const chosen = storedKid ?? keys.find((k) => k.status === 'next')?.kid ?? defaultKid(keys, env);
  const guidProblem = problemOf(schemas.JwkOperationInput.shape.jwk_guid.unwrap(), jwkGuid);
  const run = (o: JwkOperation) => op.mutate(o);
  const withKey = () => ({ kid: chosen, ...(jwkGuid.trim() !== '' ? { jwk_guid: jwkGuid.trim() } : {}) });
  const last = op.data;

  return (
    <section className="panel" aria-labelledby="jwk-title" data-testid="jwk-panel">
      <h2 id="jwk-title" className="panel-title">
        Keys at the service
      </h2>
      <div className="panel-body jwk-body">
        <div className="jwk-reads">
          <Allowed method="service.fetchJwks">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => run({ op: 'fetch' })}
              disabled={op.isPending}
              title={env?.effective_jwks_url ?? undefined}
              data-testid="service-fetch-jwks"
            >
              Fetch service JWKS
            </button>
          </Allowed>
          <Allowed method="service.listJwks">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => run({ op: 'list' })}
              disabled={op.isPending}
              title="GET …/counterparty/{guid}/jwk"
              data-testid="service-list-jwks"
            >
              List registered JWKs
            </button>
          </Allowed>
        </div>
        <div className="jwk-grid">
          <Field id="jwk-kid" label="Key to register" hint="its public JWK is sent">
            <KidSelect id="jwk-kid" keys={keys} value={chosen} onChange={setKid} testId="jwk-kid" />
          </Field>
          <Field
            id="jwk-guid"
            label="jwk_guid"
            hint="PUT only · empty: a new GUID"
            error={guidProblem ?? undefined}
          >
            <input
              id="jwk-guid"
              className="input mono"
              value={jwkGuid}
              placeholder="00000000-0000-0000-0000-000000000000"
              onChange={(e) => setJwkGuid(e.target.value)}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={guidProblem ? true : undefined}
              aria-describedby="jwk-guid-note"
              data-testid="jwk-guid"
            />
          </Field>
        </div>
        <div className="form-actions">
          <Allowed method="service.updateJwk">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => run({ op: 'update', input: withKey() })}
              disabled={op.isPending || chosen === '' || guidProblem !== null}
              title="PUT …/jwk/{jwk_guid} (spec 4.1 #1), signed by the environment's current key"
              data-testid="service-update-jwk"
            >
              Update (PUT)
            </button>
          </Allowed>
          <Allowed method="service.registerJwk">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => run({ op: 'register', input: { kid: chosen } })}
              disabled={op.isPending || chosen === ''}
              title="POST …/jwk (the guide's endpoint)"
              data-testid="service-register-jwk"
            >
              Register (POST)
            </button>
          </Allowed>
          {op.isPending ? <span className="muted">Sending…</span> : null}
        </div>
        {op.error ? <ErrorPanel title="Not sent" error={op.error} testId="jwk-error" /> : null}
        {last ? (
          <div className="jwk-result" data-testid="jwk-result" data-ok={String(last.ok)}>
            <ExchangeLine exchange={last} />
            <ExchangeDetails exchange={last} />
          </div>
        ) : null}
      </div>
    </section>
  );
}
