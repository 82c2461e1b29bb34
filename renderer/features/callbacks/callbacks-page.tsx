import { LiveDot, PageHead } from '../../shared/page-head';
import { CallbackDetail } from './callback-detail';
import { LatencyHistogram } from './latency-histogram';
import { CallbackList } from './callback-list';
import { CallbacksToolbar, CheckGroups } from './callbacks-toolbar';
import { useCallbacksPage } from './use-callbacks-page';
import './callbacks.css';

/**
 * Every callback the bank endpoints answered (/user_auth, /key, /external_id), newest first, live.
 * Failures are first-class: "failed only", grouping by the failed check, and a detail panel that
 * explains the failure with the same check list as the Inspector.
 */
export function CallbacksPage() {
  const p = useCallbacksPage();
  const { callbacks, selectedId, histogramOf, select } = p;
  return (
    <div
      className="callbacks-page"
      data-testid="callbacks-page"
      data-state={callbacks.data ? 'ready' : 'loading'}
    >
      <PageHead
        title="Callbacks"
        actions={
          <>
            <LiveDot live={p.live} testId="callbacks-live" />
            <button
              type="button"
              className="btn btn-small"
              onClick={() => void callbacks.refetch()}
              data-testid="callbacks-refresh"
            >
              Refresh
            </button>
          </>
        }
      >
        Every /user_auth, /key and /external_id the service sent your bank endpoints: the check that failed,
        the answer, and the time against the 1 s budget.
      </PageHead>
      <CallbacksToolbar p={p} />
      {p.groupByCheck ? <CheckGroups p={p} /> : null}
      <div className={`callbacks-grid ${selectedId ? 'has-detail' : ''}`}>
        <CallbackList p={p} />
        <div className="callbacks-side">
          {selectedId ? (
            <CallbackDetail key={selectedId} id={selectedId} onClose={() => select(null)} onOpen={select} />
          ) : (
            <>
              <section className="panel" aria-label="Durations">
                <h2 className="panel-title">
                  Durations{' '}
                  <span className="panel-note">
                    ms, the {histogramOf.length.toLocaleString('en')} listed callbacks, against the 1 s budget
                  </span>
                </h2>
                <LatencyHistogram events={histogramOf} />
              </section>
              <p className="muted callbacks-hint">
                Select a callback (click, or j/k then Enter) to see its token, the check that failed, the JWKS
                at that moment, the request and the answer.
              </p>
            </>
          )}
        </div>
      </div>
    </div>
  );
}
