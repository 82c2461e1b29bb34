import type { Exchange } from '../../../electron/contract/schemas/service';
import { DisclosureButton } from '../../shared/disclosure-button';
import { ExchangeDetails, ExchangeLine } from '../../shared/exchange-view';
import { formatClock } from '../../shared/format';
import { useServiceStore } from './service-store';

/** The exchange history, newest first; each entry opens to its request and response. */
export function ExchangeList({ exchanges }: { exchanges: Exchange[] }) {
  if (exchanges.length === 0) {
    return (
      <div className="empty" data-testid="exchanges-empty">
        <h2>No exchange yet</h2>
        <p>
          Every request the console sends to the active environment (authenticate, JWKS, registered JWKs,
          rotation) shows up here as it happens, with its headers, bodies and a curl to replay it.
        </p>
      </div>
    );
  }
  return (
    <ol className="exchanges" data-testid="exchanges">
      {exchanges.map((e) => (
        <ExchangeItem key={e.id} exchange={e} />
      ))}
    </ol>
  );
}

function ExchangeItem({ exchange: e }: { exchange: Exchange }) {
  const expanded = useServiceStore((s) => s.expanded[e.id] === true);
  const toggle = useServiceStore((s) => s.toggleExchange);
  const bodyId = `exchange-body-${e.id}`;
  return (
    <li
      id={`exchange-${e.id}`}
      className={`exchange-item ${e.ok ? 'is-ok' : 'is-failed'}`}
      data-testid={`exchange-${e.id}`}
      data-exchange-id={e.id}
      data-ok={String(e.ok)}
      data-operation={e.operation}
    >
      <DisclosureButton
        className="exchange-head"
        expanded={expanded}
        controls={bodyId}
        onToggle={() => toggle(e.id)}
        testId="exchange-toggle"
      >
        <ExchangeLine exchange={e} />
        <time className="exchange-time" dateTime={e.at} title={e.at}>
          {formatClock(e.at)}
        </time>
      </DisclosureButton>
      {!expanded && (e.error || e.explanation) ? (
        <p className="exchange-summary-problem" title={e.explanation ?? e.error ?? undefined}>
          {e.explanation ?? e.error}
        </p>
      ) : null}
      {expanded ? (
        <div id={bodyId} className="exchange-body-wrap">
          <ExchangeDetails exchange={e} />
        </div>
      ) : null}
    </li>
  );
}

/** Opens an exchange in the history and brings it into view (from a rotation step, a result). */
export function revealExchange(id: string): void {
  useServiceStore.getState().expandExchange(id);
  setTimeout(() => {
    const el = document.getElementById(`exchange-${id}`);
    el?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
    el?.querySelector<HTMLElement>('[data-testid="exchange-toggle"]')?.focus();
  }, 0);
}
