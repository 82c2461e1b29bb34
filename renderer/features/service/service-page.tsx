import { useEventStreamState } from '../../api/client-context';
import { ErrorPanel } from '../../shared/error-panel';
import { LivePanel, Page, RefreshButton } from '../../ui/page';
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
    <Page
      className="service-page"
      testId="service-page"
      state={exchanges.data ? 'ready' : 'loading'}
      title="Service"
      actions={<RefreshButton onClick={() => void exchanges.refetch()} testId="service-refresh" />}
      intro="The active environment’s service, from your bank’s side: authenticate, its JWKS, your registered JWKs, key rotation, and every request with its answer."
    >
      <EnvSummary env={env} />

      <div className="service-grid">
        <div className="service-column">
          <AuthenticatePanel env={env} />
          <JwkPanel env={env} />
          <RotationPanel env={env} />
        </div>
        <LivePanel
          id="history-title"
          className="service-history"
          title="Exchanges"
          live={live}
          what="exchanges"
          liveTestId="exchanges-live"
        >
          {exchanges.error ? (
            <ErrorPanel title="History unavailable" error={exchanges.error} testId="exchanges-error" />
          ) : exchanges.data ? (
            <ExchangeList exchanges={exchanges.data} />
          ) : (
            <p className="muted">Loading the history…</p>
          )}
        </LivePanel>
      </div>
    </Page>
  );
}
