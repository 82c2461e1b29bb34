import { useEventStreamState } from '../../api/client-context';
import { ErrorPanel } from '../../shared/error-panel';
import { LiveDot, PageHead } from '../../shared/page-head';
import { EnvSummary } from '../../shared/env-summary';
import { useActiveEnvironment } from '../../data/environments';
import { AuthenticatePanel } from './authenticate-panel';
import { ExchangeList } from './exchange-list';
import { JwkPanel } from './jwk-panel';
import { RotationPanel } from './rotation-panel';
import { useExchanges } from '../../data/service';
import './service.css';

export function ServicePage() {
  const env = useActiveEnvironment();
  const exchanges = useExchanges();
  const live = useEventStreamState().status === 'connected';

  return (
    <div
      className="service-page"
      data-testid="service-page"
      data-state={exchanges.data ? 'ready' : 'loading'}
    >
      <PageHead
        title="Service"
        actions={
          <button
            type="button"
            className="btn btn-small"
            onClick={() => void exchanges.refetch()}
            data-testid="service-refresh"
          >
            Refresh
          </button>
        }
      >
        The active environment’s service, from your bank’s side: authenticate, its JWKS, your registered JWKs,
        key rotation, and every request with its answer.
      </PageHead>
      <EnvSummary env={env} />

      <div className="service-grid">
        <div className="service-column">
          <AuthenticatePanel env={env} />
          <JwkPanel env={env} />
          <RotationPanel env={env} />
        </div>
        <section className="panel service-history" aria-labelledby="history-title">
          <h2 id="history-title" className="panel-title">
            Exchanges <span className="panel-note">newest first</span>
            <span className="panel-spacer" />
            <LiveDot
              live={live}
              title={
                live ? 'New exchanges appear as they happen' : 'Live events are not flowing: press Refresh'
              }
              testId="exchanges-live"
            />
          </h2>
          <div className="panel-body">
            {exchanges.error ? (
              <ErrorPanel title="History unavailable" error={exchanges.error} testId="exchanges-error" />
            ) : exchanges.data ? (
              <ExchangeList exchanges={exchanges.data} />
            ) : (
              <p className="muted">Loading the history…</p>
            )}
          </div>
        </section>
      </div>
    </div>
  );
}
