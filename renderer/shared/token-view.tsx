import { analyzeTokenText, segmentLengths } from './token-text';

const SEGMENTS = ['header', 'payload', 'signature'] as const;

/**
 * A token shown read-only in the Inspector's colours (header, payload, signature), with the
 * segment lengths under it. The text is selectable; copy buttons live next to it.
 */
export function TokenView({
  token,
  testId,
  legend = true,
}: {
  token: string;
  testId: string;
  legend?: boolean;
}) {
  const { runs, token: compact } = analyzeTokenText(token);
  const lengths = segmentLengths(compact);
  return (
    <div className="token-view-wrap">
      <pre className="token-view" data-testid={testId} data-token={compact}>
        {runs.map((run, i) => (
          <span key={i} className={`seg seg-${run.kind}`} data-segment={run.kind}>
            {run.text}
          </span>
        ))}
      </pre>
      {legend ? (
        <div className="token-view-legend" aria-hidden="true">
          {SEGMENTS.map((kind, i) => (
            <span key={kind} className={`legend legend-${kind}`}>
              <span className="legend-chip" />
              {kind}
              {lengths[i] !== undefined ? <span className="muted"> {lengths[i]}</span> : null}
            </span>
          ))}
        </div>
      ) : null}
    </div>
  );
}
