import { CALLBACK_BUDGET_MS as BUDGET_MS } from '../../electron/contract/schemas/inspector';
import { formatMs } from './format';

/** A duration against the 1 s budget: the bar spans 0–1.5 s, the line marks 1 s, over it turns red. */
export function DurationBar({ ms }: { ms: number | null }) {
  const over = ms !== null && ms > BUDGET_MS;
  const pct = ms === null ? 0 : Math.min(100, (ms / (BUDGET_MS * 1.5)) * 100);
  return (
    <span
      className={`duration ${over ? 'is-over' : ''}`}
      data-over={String(over)}
      title="against the 1 s budget"
    >
      <span className="duration-track" aria-hidden="true">
        <span className="duration-fill" style={{ width: `${pct}%` }} />
        <span className="duration-budget" />
      </span>
      <span className="duration-ms">{formatMs(ms)}</span>
    </span>
  );
}
