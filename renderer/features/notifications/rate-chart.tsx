import { memo } from 'react';
import type { RateScale } from './notifications-store';
import { useNotificationRate } from '../../data/notifications';

const W = 480;
const H = 90;

const SCALES: Record<
  RateScale,
  { bucketMs: number; buckets: number; unit: string; span: string; mid: string }
> = {
  second: { bucketMs: 1_000, buckets: 120, unit: '/s', span: '2 min', mid: '1 min' },
  minute: { bucketMs: 60_000, buckets: 60, unit: '/min', span: '60 min', mid: '30 min' },
};

/** The smallest 1, 2 or 5 × 10ⁿ at or above `n`: the y-axis top, so its ticks are round numbers. */
export function niceCeiling(n: number): number {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/** Peak and mean of whole buckets: what the chart says is what the bars show (issue 13, 8). */
export function rateSummary(counts: readonly number[]): { peak: number; mean: number; last: number } {
  const peak = counts.length ? Math.max(...counts) : 0;
  const mean = counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0;
  return { peak, mean, last: counts.at(-1) ?? 0 };
}

/**
 * Notifications per whole second or minute, counted by the store (events.stats), over a sliding
 * window: bars with a y-axis in notifications per unit and a time axis. Every bucket is complete
 * (the one in progress is left out), so the peak is a count that happened, not a projection.
 * Memoized: the page renders on every live batch, the chart when its own counts arrive.
 */
export const RateChart = memo(function RateChart({ scale }: { scale: RateScale }) {
  const s = SCALES[scale];
  const rate = useNotificationRate(s.bucketMs, s.buckets).data?.rate;
  const counts = rate?.counts ?? new Array<number>(s.buckets).fill(0);
  const { peak, mean, last } = rateSummary(counts);
  const top = niceCeiling(peak);
  const bw = W / counts.length;
  const fmt = (n: number) => n.toLocaleString('en', { maximumFractionDigits: n < 10 ? 1 : 0 });
  return (
    <figure className="rate" data-testid="notifications-rate" data-peak={peak} data-mean={mean.toFixed(1)}>
      <figcaption className="rate-labels">
        <span data-testid="notifications-rate-peak">
          peak {fmt(peak)} notifications{s.unit}
        </span>
        <span>
          mean {fmt(mean)}
          {s.unit} over the last {s.span}
        </span>
        <span>
          last whole {scale}: {fmt(last)}
          {s.unit}
        </span>
      </figcaption>
      <div className="rate-plot">
        <div className="rate-y" aria-hidden="true" data-testid="notifications-rate-y">
          <span>{fmt(top)}</span>
          <span>{fmt(top / 2)}</span>
          <span>0</span>
        </div>
        <svg
          viewBox={`0 0 ${W} ${H}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`Notifications ${s.unit}, last ${s.span}; peak ${peak}${s.unit}, mean ${fmt(mean)}${s.unit}`}
        >
          <line x1={0} x2={W} y1={H / 2} y2={H / 2} className="rate-grid" />
          <line x1={0} x2={W} y1={0.5} y2={0.5} className="rate-grid" />
          {counts.map((n, i) =>
            n > 0 ? (
              <rect
                key={i}
                x={i * bw + 0.5}
                y={H - (H * n) / top}
                width={Math.max(1, bw - 1)}
                height={(H * n) / top}
                className="rate-bar"
              >
                <title>{`${n}${s.unit} at ${new Date(Date.parse(rate?.start ?? '') + i * s.bucketMs).toLocaleTimeString()}`}</title>
              </rect>
            ) : null,
          )}
          <line x1={0} x2={W} y1={H - 0.5} y2={H - 0.5} className="rate-axis" />
        </svg>
        <div className="rate-x" aria-hidden="true">
          <span>−{s.span}</span>
          <span>−{s.mid}</span>
          <span>now</span>
        </div>
      </div>
    </figure>
  );
});
