import { useEffect, useState } from 'react';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import { rateSeries } from './notifications-model';
import type { RateScale } from './notifications-store';

const W = 480;
const H = 90;
const PAD_B = 1;
const PAD_T = 2;

const SCALES: Record<RateScale, { bucketMs: number; buckets: number; unit: string; span: string }> = {
  second: { bucketMs: 1_000, buckets: 120, unit: '/s', span: 'last 2 min' },
  minute: { bucketMs: 60_000, buckets: 60, unit: '/min', span: 'last 60 min' },
};

/** A clock that ticks every `ms` so the window slides while nothing arrives. */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** Notifications per second or minute over a sliding window, as bars (hand-rolled SVG). */
export function RateChart({ events, scale }: { events: readonly EventSummary[]; scale: RateScale }) {
  const s = SCALES[scale];
  const now = useNow(scale === 'second' ? 1_000 : 10_000);
  const series = rateSeries(events, now, s.bucketMs, s.buckets);
  const max = Math.max(1, ...series);
  const peak = Math.max(...series);
  const bw = W / s.buckets;
  const last = series.at(-1) ?? 0;
  return (
    <figure className="rate" data-testid="notifications-rate" data-peak={peak}>
      <div className="rate-labels" aria-hidden="true">
        <span>
          peak {peak}
          {s.unit}
        </span>
        <span>
          now {last}
          {s.unit}
        </span>
      </div>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Notifications ${s.unit}, ${s.span}; peak ${peak}`}
      >
        <line x1={0} x2={W} y1={H - PAD_B} y2={H - PAD_B} className="rate-axis" />
        {series.map((n, i) =>
          n > 0 ? (
            <rect
              key={i}
              x={i * bw + 0.5}
              y={H - PAD_B - ((H - PAD_B - PAD_T) * n) / max}
              width={Math.max(1, bw - 1)}
              height={((H - PAD_B - PAD_T) * n) / max}
              className="rate-bar"
            >
              <title>{`${n}${s.unit}`}</title>
            </rect>
          ) : null,
        )}
      </svg>
      <div className="rate-labels" aria-hidden="true">
        <span>−{s.span.replace('last ', '')}</span>
        <span>now</span>
      </div>
    </figure>
  );
}
