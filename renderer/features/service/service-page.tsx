import { useEventStreamState } from '../../api/client-context';
import { LivePanel, Page, RefreshButton } from '../../ui/page';
import { Loaded } from '../../ui/loaded';
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
          <Loaded
            query={exchanges}
            errorTitle="History unavailable"
            errorTestId="exchanges-error"
            loading="Loading the history…"
          >
            {(data) => <ExchangeList exchanges={data} />}
          </Loaded>
        </LivePanel>
      </div>
    </Page>
  );
}
