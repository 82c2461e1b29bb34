import { memo } from 'react';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import { BUDGET_MS, latencyHistogram } from './callbacks-model';

const W = 320;
const H = 110;
const PAD_B = 18;
const PAD_T = 14;

/**
 * Callback durations in buckets up to "over 1 s", the 1 s budget (spec 4.2) marked. Hand-rolled SVG.
 * Memoized: the page renders on every live batch, the histogram only when its events change.
 */
export const LatencyHistogram = memo(function LatencyHistogram({ events }: { events: EventSummary[] }) {
  const buckets = latencyHistogram(events);
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const bw = W / buckets.length;
  const budgetIndex = buckets.findIndex((b) => b.upper === BUDGET_MS);
  const budgetX = (budgetIndex + 1) * bw;
  const over = buckets[buckets.length - 1]!.count;
  return (
    <figure className="latency" data-testid="callbacks-histogram" data-over-budget={over}>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Callback durations; ${over} over the 1 s budget`}
      >
        {buckets.map((b, i) => {
          const h = ((H - PAD_B - PAD_T) * b.count) / max;
          return (
            <g key={b.label}>
              <rect
                x={i * bw + 3}
                y={H - PAD_B - h}
                width={bw - 6}
                height={h}
                className={b.upper > BUDGET_MS ? 'latency-bar is-over' : 'latency-bar'}
              >
                <title>{`${b.label} ms: ${b.count}`}</title>
              </rect>
              {b.count > 0 ? (
                <text x={i * bw + bw / 2} y={H - PAD_B - h - 3} className="latency-count" textAnchor="middle">
                  {b.count}
                </text>
              ) : null}
              <text x={i * bw + bw / 2} y={H - 5} className="latency-label" textAnchor="middle">
                {b.label}
              </text>
            </g>
          );
        })}
        <line x1={budgetX} x2={budgetX} y1={2} y2={H - PAD_B} className="latency-budget" />
        <text x={budgetX - 3} y={10} className="latency-budget-label" textAnchor="end">
          1 s budget
        </text>
      </svg>
    </figure>
  );
});
