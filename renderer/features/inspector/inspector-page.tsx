import { PageHead } from '../../shared/page-head';
import { EmptyState } from './empty-state';
import { ExpectationsField } from './expectations-field';
import { KeySourceField } from './key-source-field';
import { useInspectorStore } from './inspector-store';
import { AdviceList, ChecksList, DecodedPart, VerdictBanner } from '../../shared/report-views';
import { InspectError, TimesTable } from './report-views';
import { TokenEditor } from './token-editor';
import { useInspection } from './use-inspection';
import './inspector.css';

export function InspectorPage() {
  const { query, keyProblem, pending, hasToken } = useInspection();
  const clear = useInspectorStore((s) => s.clear);
  const loadSample = useInspectorStore((s) => s.loadSample);
  const report = hasToken ? query.data : undefined;
  // For people (dimmed results) and for tests (wait for "ready" instead of sleeping).
  const state = !hasToken
    ? 'empty'
    : pending || query.isPlaceholderData
      ? 'stale'
      : query.error
        ? 'error'
        : report
          ? 'ready'
          : 'loading';

  return (
    <div className="inspector" data-testid="inspector-page">
      <PageHead
        title="Token Inspector"
        status={
          <span
            className={`busy ${pending && hasToken ? 'busy-on' : ''}`}
            data-testid="inspect-busy"
            aria-live="polite"
          >
            {pending && hasToken ? 'inspecting…' : ''}
          </span>
        }
        actions={
          <>
            <button type="button" className="btn btn-small" onClick={loadSample} data-testid="load-sample">
              Sample
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => void query.refetch()}
              disabled={!hasToken}
              data-testid="rerun"
            >
              Re-run
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={clear}
              disabled={!hasToken}
              data-testid="clear-token"
            >
              Clear
            </button>
          </>
        }
      >
        Decode a token and run every check on it, as the service and a bank would.
      </PageHead>

      <div className="inspector-grid">
        <div className="inspector-input">
          <TokenEditor />
          <KeySourceField keyProblem={keyProblem} keys={report?.keys} />
          <ExpectationsField />
          {report && !query.error ? (
            <div className={`decoded-grid ${state === 'stale' ? 'is-stale' : ''}`}>
              <DecodedPart title="Header" kind="header" value={report.header} />
              <DecodedPart title="Payload" kind="payload" value={report.payload} />
            </div>
          ) : null}
        </div>

        <div
          className={`inspector-results ${state === 'stale' ? 'is-stale' : ''}`}
          data-testid="inspector-results"
          data-state={state}
          aria-busy={state === 'stale' || state === 'loading'}
        >
          {!hasToken ? (
            <EmptyState />
          ) : query.error ? (
            <InspectError error={query.error} />
          ) : report ? (
            <>
              <VerdictBanner report={report} stale={pending} />
              <ChecksList checks={report.checks} />
              <AdviceList advice={report.advice} />
              <TimesTable report={report} />
            </>
          ) : (
            <p className="muted">Inspecting…</p>
          )}
        </div>
      </div>
    </div>
  );
}
