import { SERVICE_LADDER_MAX_ATTEMPTS } from '../../../electron/contract/schemas/delivery';
import { useEventStreamState } from '../../api/client-context';
import { ErrorPanel } from '../../shared/error-panel';
import { LivePanel, Page, RefreshButton } from '../../ui/page';
import { Loaded } from '../../ui/loaded';
import { CounterpartiesPanel } from './counterparties-panel';
import { MemoryKeyBanner, ServicePanel } from './service-panel';
import { TracesTimeline } from './traces-timeline';
import { DeliveriesPanel } from './deliveries-panel';
import { DeliverySettingsPanel } from './delivery-settings';
import { useSandboxLiveUpdates, useSandboxStatus, useSandboxTraces } from '../../data/sandbox';
import { deliveryKeys, useDeliveryLiveUpdates } from '../../data/deliveries';
import { useQueryClient } from '@tanstack/react-query';
import './sandbox.css';

export function SandboxPage() {
  useSandboxLiveUpdates();
  useDeliveryLiveUpdates();
  const queryClient = useQueryClient();
  const status = useSandboxStatus();
  const traces = useSandboxTraces();
  const live = useEventStreamState().status === 'connected';
  // For tests (wait for "ready" instead of sleeping) and for the dimmed loading state.
  const state = status.error ? 'error' : status.data ? 'ready' : 'loading';

  return (
    <Page
      className="sandbox"
      testId="sandbox-page"
      state={state}
      title="Sandbox"
      actions={
        <RefreshButton
          onClick={() => {
            void status.refetch();
            void traces.refetch();
            void queryClient.invalidateQueries({ queryKey: deliveryKeys.all });
          }}
          testId="sandbox-refresh"
        />
      }
      intro="The service, simulated: onboard your bank, run the registration flow against its callbacks, send it notifications, and see every step."
    >
      {status.error ? (
        <ErrorPanel title="The sandbox is not available" error={status.error} testId="sandbox-error">
          <p className="muted">Press Refresh once it is fixed: nothing else on this page needs a restart.</p>
        </ErrorPanel>
      ) : null}
      {status.data?.key_persistence === 'memory' ? <MemoryKeyBanner /> : null}

      <div className="sandbox-grid" aria-busy={state === 'loading'}>
        <div className="sandbox-column">
          {status.data ? (
            <>
              <ServicePanel status={status.data} />
              <CounterpartiesPanel counterparties={status.data.counterparties} />
              <DeliverySettingsPanel settings={status.data.settings} />
            </>
          ) : state === 'loading' ? (
            <p className="muted">Loading the sandbox…</p>
          ) : null}
        </div>

        <div className="sandbox-column">
          <DeliveriesPanel
            live={live}
            maxAttempts={status.data?.settings.delivery_max_attempts ?? SERVICE_LADDER_MAX_ATTEMPTS}
          />
          <LivePanel
            id="traces-title"
            className="sandbox-traces"
            title="Traces"
            live={live}
            what="traces"
            liveTestId="traces-live"
          >
            <Loaded
              query={traces}
              errorTitle="Traces unavailable"
              errorTestId="traces-error"
              loading="Loading traces…"
            >
              {(data) => <TracesTimeline traces={data} />}
            </Loaded>
          </LivePanel>
        </div>
      </div>
    </Page>
  );
}
