import { useEffect, useMemo, useRef } from 'react';
import { MOD_KEY_LABEL, useUiStore } from '../../shared/focus-request';
import { useInspectorStore } from './inspector-store';
import { analyzeTokenText, segmentLengths, type RunKind } from '../../shared/token-text';

const SEGMENT_LABELS: Array<{ kind: RunKind; label: string }> = [
  { kind: 'header', label: 'header' },
  { kind: 'payload', label: 'payload' },
  { kind: 'signature', label: 'signature' },
];

/** Renders `a \`b\` c` with the back-quoted parts as code. */
function InlineCode({ text }: { text: string }) {
  return <>{text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}

/**
 * The token textarea, with the raw text mirrored underneath in a highlight layer: header, payload
 * and signature in their own colours, stripped wrappers dimmed. The textarea's own text is
 * transparent (its caret and selection are not), so what you see is what you edit.
 */
export function TokenEditor() {
  const raw = useInspectorStore((s) => s.raw);
  const set = useInspectorStore((s) => s.set);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const mirror = useRef<HTMLPreElement>(null);
  const pendingFocus = useUiStore((s) => s.pendingFocus);
  const analysis = useMemo(() => analyzeTokenText(raw), [raw]);
  const lengths = segmentLengths(analysis.token);

  useEffect(() => {
    if (pendingFocus === 'token-input' && useUiStore.getState().takeFocus('token-input')) {
      textarea.current?.focus();
      textarea.current?.select();
    }
  }, [pendingFocus]);

  const syncScroll = () => {
    if (mirror.current && textarea.current) {
      mirror.current.scrollTop = textarea.current.scrollTop;
      mirror.current.scrollLeft = textarea.current.scrollLeft;
    }
  };
  useEffect(syncScroll, [raw]);

  return (
    <div className="field">
      <div className="field-head">
        <label htmlFor="token-input" className="field-label">
          Token
        </label>
        <span className="field-hint">
          compact JWS · <kbd>{MOD_KEY_LABEL}</kbd> to focus
        </span>
      </div>
      <div className="token-editor">
        <pre className="token-mirror" ref={mirror} aria-hidden="true" data-testid="token-segments">
          {analysis.runs.map((run, i) => (
            <span key={i} className={`seg seg-${run.kind}`} data-segment={run.kind}>
              {run.text}
            </span>
          ))}
          {raw.endsWith('\n') ? ' ' : null}
        </pre>
        <textarea
          id="token-input"
          ref={textarea}
          className="token-textarea"
          data-testid="token-input"
          value={raw}
          onChange={(e) => set({ raw: e.target.value })}
          onScroll={syncScroll}
          rows={9}
          spellCheck={false}
          autoComplete="off"
          autoCorrect="off"
          autoCapitalize="off"
          placeholder="Paste a token: eyJhbGciOiJSUzI1NiIs…"
          aria-describedby="token-help"
        />
      </div>
      <div className="token-meta" id="token-help">
        {analysis.token === '' ? (
          <span className="muted">
            <code>Bearer </code>, a <code>CX-Authorization:</code> / <code>X-Session-ID:</code> header name,
            quotes and line breaks are stripped before inspecting.
          </span>
        ) : (
          <>
            <span className="seg-legend" data-testid="segment-legend">
              {SEGMENT_LABELS.map(({ kind, label }, i) => (
                <span key={kind} className={`legend legend-${kind}`}>
                  <span className="legend-chip" aria-hidden="true" />
                  {label}
                  {lengths[i] !== undefined ? <span className="muted"> {lengths[i]}</span> : null}
                </span>
              ))}
              {lengths.length !== 3 ? (
                <span className="text-fail" data-testid="segment-count">
                  {lengths.length} segment{lengths.length === 1 ? '' : 's'} (a compact JWS has 3)
                </span>
              ) : null}
            </span>
            {analysis.stripped.length > 0 ? (
              <span className="token-stripped" data-testid="token-stripped">
                stripped:{' '}
                {analysis.stripped.map((note, i) => (
                  <span key={note}>
                    {i > 0 ? ', ' : null}
                    <InlineCode text={note} />
                  </span>
                ))}
              </span>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}
