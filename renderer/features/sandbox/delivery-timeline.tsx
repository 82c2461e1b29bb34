import type { Delivery } from '../../../electron/contract/schemas/delivery';
import { timelineOf } from '../../shared/delivery-model';
import { formatClockMs, formatMs } from '../../shared/format';

/**
 * One delivery's attempts as a timeline (issue 27 item 3): each attempt's time, what answered
 * (a status, or the error when nothing did), how long it took, and when the next attempt went or
 * goes; copies sent by `duplicates` marked as such. The last line says what the delivery is now.
 */
export function DeliveryTimeline({ delivery }: { delivery: Delivery }) {
  const rows = timelineOf(delivery);
  return (
    <ol className="delivery-timeline" aria-label={`Attempts of delivery ${delivery.delivery_id}`}>
      {rows.map((r) => (
        <li
          key={r.key}
          className={`delivery-attempt ${r.accepted ? 'is-accepted' : 'is-failed'}`}
          data-testid="delivery-attempt"
          data-n={r.n}
          data-copy={String(r.copy)}
          data-status={r.status ?? 'none'}
        >
          <span className="delivery-attempt-n">{r.copy ? `copy of #${r.n}` : `#${r.n}`}</span>
          <time dateTime={r.at} className="mono">
            {formatClockMs(r.at)}
          </time>
          <span className={r.accepted ? 'text-pass' : 'text-fail'}>
            {r.status !== null ? `HTTP ${r.status}` : (r.error ?? 'no answer')}
          </span>
          <span className="muted">{formatMs(r.duration_ms)}</span>
          <span className="muted" data-testid="delivery-attempt-next">
            {r.next_at ? `next ${formatClockMs(r.next_at)}` : ''}
          </span>
        </li>
      ))}
      {rows.length === 0 ? <li className="muted">The first attempt is on its way.</li> : null}
    </ol>
  );
}
