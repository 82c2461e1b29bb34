import type { Delivery } from '../../../electron/contract/schemas/delivery';
import { progressOf, progressWords } from '../../shared/delivery-model';
import { DisclosureButton } from '../../shared/disclosure-button';
import { formatClockMs, shortGuid } from '../../shared/format';
import { Segmented } from '../../shared/segmented';
import { Loaded } from '../../ui/loaded';
import { LivePanel } from '../../ui/page';
import { useDeliveries } from '../../data/deliveries';
import { DeliveryTimeline } from './delivery-timeline';
import { useSandboxStore, type DeliveryFilter } from './sandbox-store';

const FILTERS: Array<{ value: DeliveryFilter; label: string }> = [
  { value: 'all', label: 'all' },
  { value: 'delivering', label: 'delivering' },
  { value: 'delivered', label: 'delivered' },
  { value: 'escalated', label: 'escalated' },
];

/** How many deliveries the panel lists (the core keeps the newest 500). */
const SHOWN = 50;

const BADGE: Record<Delivery['state'], string> = {
  delivering: 'badge-warn',
  delivered: 'badge-pass',
  escalated: 'badge-fail',
};

/**
 * The notifications the sandbox is delivering and has delivered (issue 27 item 3), newest first:
 * each with its state and progress, opening onto its timeline of attempts. Live: every attempt
 * arrives as a `sandbox.attempted` event (data/deliveries.ts), so a delivery is followed until it
 * is delivered or escalated without polling.
 */
export function DeliveriesPanel({ live, maxAttempts }: { live: boolean; maxAttempts: number }) {
  const deliveries = useDeliveries();
  const filter = useSandboxStore((s) => s.deliveryFilter);
  const setFilter = useSandboxStore((s) => s.setDeliveryFilter);
  return (
    <LivePanel
      id="deliveries-title"
      className="sandbox-deliveries"
      title="Deliveries"
      live={live}
      what="attempts"
      liveTestId="deliveries-live"
    >
      <div data-testid="deliveries">
        <Segmented
          inline
          label="Show deliveries"
          name="deliveries-filter"
          options={FILTERS}
          value={filter}
          onChange={setFilter}
          testIdPrefix="deliveries-filter-"
        />
        <Loaded
          query={deliveries}
          errorTitle="Deliveries unavailable"
          errorTestId="deliveries-error"
          loading="Loading deliveries…"
        >
          {(all) => {
            const shown = all.filter((d) => filter === 'all' || d.state === filter).slice(0, SHOWN);
            return shown.length === 0 ? (
              <p className="muted" data-testid="deliveries-empty">
                {all.length === 0
                  ? 'No notification sent yet: send one from a counterparty, and follow its attempts here.'
                  : `No ${filter} delivery.`}
              </p>
            ) : (
              <ul className="delivery-list">
                {shown.map((d) => (
                  <DeliveryItem key={d.delivery_id} delivery={d} maxAttempts={maxAttempts} />
                ))}
              </ul>
            );
          }}
        </Loaded>
      </div>
    </LivePanel>
  );
}

function DeliveryItem({ delivery: d, maxAttempts }: { delivery: Delivery; maxAttempts: number }) {
  const open = useSandboxStore((s) => s.openDeliveries[d.delivery_id] === true);
  const toggle = useSandboxStore((s) => s.toggleDelivery);
  const bodyId = `delivery-body-${d.delivery_id}`;
  const progress = progressOf(d, maxAttempts);
  return (
    <li
      className={`delivery delivery-${d.state}`}
      data-testid="delivery"
      data-delivery-id={d.delivery_id}
      data-state={d.state}
      data-attempts={progress.attempts}
      data-transaction-id={d.transaction_id}
    >
      <DisclosureButton
        className="disclosure"
        expanded={open}
        controls={bodyId}
        onToggle={() => toggle(d.delivery_id)}
        testId="delivery-toggle"
      >
        <span className={`badge ${BADGE[d.state]}`}>{d.state}</span> <strong>{d.event}</strong>{' '}
        <code title={d.transaction_id}>{shortGuid(d.transaction_id)}</code>{' '}
        <span className="muted" data-testid="delivery-progress">
          {progressWords(progress, formatClockMs)}
        </span>
      </DisclosureButton>
      {open ? (
        <div id={bodyId} className="delivery-body">
          <p className="field-note muted">
            <code>{d.url}</code> · ladder {d.ladder}
            {Object.keys(d.faults).length > 0 ? ` · faults ${JSON.stringify(d.faults)}` : ''} · delivery{' '}
            <code>{d.delivery_id}</code>
          </p>
          <DeliveryTimeline delivery={d} />
        </div>
      ) : null}
    </li>
  );
}
