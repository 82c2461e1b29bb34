import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useListKeys } from '../../shared/use-list-keys';
import { useThrottledValue } from '../../shared/use-throttled-value';
import { useEventStreamState } from '../../api/client-context';
import { ErrorPanel } from '../../shared/error-panel';
import { StoreSearch, useSettledSearch } from '../../shared/store-search';
import { formatClock } from '../../shared/format';
import { LiveDot, PageHead } from '../../shared/page-head';
import { StatusMark } from '../../shared/status-mark';
import { CallbackDetail } from './callback-detail';
import { CALLBACK_ROW_HEIGHT, isFailed, routeOf } from './callbacks-model';
import { useCallbacksStore } from './callbacks-store';
import { DurationBar } from '../../shared/duration-bar';
import { LatencyHistogram } from './latency-histogram';
import { CALLBACK_LIMIT, useCallbacks, useFailedCounts } from '../../data/callbacks';
import './callbacks.css';

/**
 * Every callback the bank endpoints answered (/user_auth, /key, /external_id), newest first, live.
 * Failures are first-class: "failed only", grouping by the failed check, and a detail panel that
 * explains the failure with the same check list as the Inspector.
 */
const rowHeight = () => CALLBACK_ROW_HEIGHT;

/** How often the durations histogram follows the list while callbacks arrive. */
const HISTOGRAM_EVERY_MS = 500;

export function CallbacksPage() {
  const live = useEventStreamState().status === 'connected';
  const { failedOnly, failedCheck, groupByCheck, text, selectedId, cursorId } = useCallbacksStore();
  const { setFailedOnly, setFailedCheck, setGroupByCheck, setText, select, moveCursor } =
    useCallbacksStore.getState();
  const settledText = useSettledSearch(text);
  // Filters and search are the store's (issue 13, items 8 and 9): one indexed query each.
  const {
    query: callbacks,
    events: shown,
    total,
  } = useCallbacks({
    kind: 'callback',
    ...(failedCheck ? { failed_check: failedCheck } : failedOnly ? { failed: true } : {}),
    ...(settledText.trim() ? { text: settledText.trim() } : {}),
  });
  const failedStats = useFailedCounts(live).data;
  const groups = useMemo(
    () => (failedStats?.groups ?? []).flatMap((g) => (g.value ? [{ check: g.value, count: g.count }] : [])),
    [failedStats],
  );
  const failedCount = failedStats?.total ?? 0;
  // The histogram of what is listed: recounted twice a second, not on every live frame.
  const histogramOf = useThrottledValue(shown, HISTOGRAM_EVERY_MS);
  const filtering = callbacks.isPlaceholderData || settledText !== text;
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = callbacks;
  const scroller = useRef<HTMLDivElement>(null);
  // Only with a cursor: a scan of 20,000 rows on every live render costs frames (issue 13 item 9).
  const at = useMemo(
    () => (cursorId === null ? -1 : shown.findIndex((e) => e.id === cursorId)),
    [shown, cursorId],
  );
  // Virtualized with a fixed row height and stable options (no re-layout of every row per render).
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: useCallback(() => scroller.current, []),
    estimateSize: rowHeight,
    overscan: 10,
    initialRect: { width: 800, height: 600 },
  });

  useEffect(() => {
    if (at >= 0) virtualizer.scrollToIndex(at, { align: 'auto' });
  }, [at, virtualizer]);

  // The next page when the rows in view near the end of those loaded.
  const lastInView = virtualizer.getVirtualItems().at(-1)?.index ?? 0;
  useEffect(() => {
    if (
      shown.length > 0 &&
      lastInView >= shown.length - 100 &&
      hasNextPage &&
      !isFetchingNextPage &&
      !isError
    )
      void fetchNextPage();
  }, [lastInView, shown.length, hasNextPage, isFetchingNextPage, isError, fetchNextPage]);

  // j/k (and the arrows in the list) move the cursor, Enter opens, as soon as the page has focus.
  useListKeys({
    ids: () => shown.map((e) => e.id),
    cursorId,
    listRef: scroller,
    onMove: moveCursor,
    onOpen: select,
    onClose: () => select(null),
  });

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
            <LiveDot live={live} testId="callbacks-live" />
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

      <div className="callbacks-toolbar">
        <label className="toggle">
          <input
            type="checkbox"
            checked={failedOnly}
            onChange={(e) => setFailedOnly(e.target.checked)}
            data-testid="callbacks-failed-only"
          />
          Failed only <span className="badge badge-fail">{failedCount}</span>
        </label>
        <label className="toggle">
          <input
            type="checkbox"
            checked={groupByCheck}
            onChange={(e) => setGroupByCheck(e.target.checked)}
            data-testid="callbacks-group-by-check"
          />
          Group by failed check
        </label>
        {failedCheck ? (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => setFailedCheck(null)}
            data-testid="callbacks-clear-check"
          >
            check: {failedCheck} ✕
          </button>
        ) : null}
        <StoreSearch
          value={text}
          onChange={setText}
          what="callbacks"
          columns="obj, sub, path, failed check, warning, sender"
          className="callbacks-search"
          testId="callbacks-search"
        />
        <span className="panel-spacer" />
        <span
          className="muted"
          data-testid="callbacks-count"
          data-total={total}
          data-loaded={shown.length}
          data-filtering={String(filtering)}
          aria-busy={filtering}
        >
          {total.toLocaleString('en')} match{total === 1 ? '' : 'es'}
        </span>
        <span className="kbd-hint muted">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open
        </span>
      </div>

      {groupByCheck ? (
        <ul className="check-groups" data-testid="callbacks-groups">
          {groups.length === 0 ? <li className="muted">No failed callback.</li> : null}
          {groups.map((g) => (
            <li key={g.check}>
              <button
                type="button"
                className={`check-group ${failedCheck === g.check ? 'is-active' : ''}`}
                onClick={() => setFailedCheck(failedCheck === g.check ? null : g.check)}
                data-testid={`callbacks-group-${g.check}`}
                data-count={g.count}
                aria-pressed={failedCheck === g.check}
              >
                <code>{g.check}</code> <span className="badge badge-fail">{g.count}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}

      <div className={`callbacks-grid ${selectedId ? 'has-detail' : ''}`}>
        <section className="panel callbacks-list-panel" aria-label="Callbacks">
          {callbacks.error ? (
            <ErrorPanel title="Callbacks unavailable" error={callbacks.error} testId="callbacks-error" />
          ) : !callbacks.data ? (
            <p className="muted">Loading…</p>
          ) : shown.length === 0 ? (
            <div className="empty" data-testid="callbacks-empty">
              <h2>{!failedOnly && !settledText.trim() ? 'No callback yet' : 'No callback matches'}</h2>
              <p>
                {!failedOnly && !settledText.trim()
                  ? 'Run the registration flow (Sandbox page) or point the service at your bank URL (Bank page): each callback shows up here as it arrives.'
                  : 'Clear the filter to see the others.'}
              </p>
            </div>
          ) : (
            <>
              <div className="callback-row callback-row-head" aria-hidden="true">
                <span>time</span>
                <span>route</span>
                <span>obj</span>
                <span>outcome</span>
                <span>HTTP</span>
                <span>duration</span>
              </div>
              <div
                className="callbacks-list"
                ref={scroller}
                tabIndex={0}
                data-testid="callbacks-list"
                aria-label="Callbacks, newest first"
              >
                <ol className="callbacks-rows" style={{ height: virtualizer.getTotalSize() }}>
                  {virtualizer.getVirtualItems().map((item) => {
                    const e = shown[item.index]!;
                    return (
                      <li
                        key={e.id}
                        className={`callback-row ${isFailed(e) ? 'is-failed' : 'is-passed'} ${e.id === selectedId ? 'is-selected' : ''} ${e.id === cursorId ? 'is-cursor' : ''}`}
                        style={{ transform: `translateY(${item.start}px)` }}
                        data-testid="callback-row"
                        data-event-id={e.id}
                        data-failed-check={e.failed_check ?? ''}
                        data-cursor={String(e.id === cursorId)}
                        aria-selected={e.id === selectedId}
                        onClick={() => select(e.id)}
                      >
                        <time dateTime={e.at} title={e.at}>
                          {formatClock(e.at)}
                        </time>
                        <code title={e.path ?? undefined}>{routeOf(e.path)}</code>
                        {e.obj ? (
                          <code className="callback-obj" title={e.obj}>
                            {e.obj}
                          </code>
                        ) : (
                          <span className="muted">—</span>
                        )}
                        <span data-testid="callback-outcome">
                          {e.failed_check ? (
                            <StatusMark status="failed" word={e.failed_check} />
                          ) : e.status !== null && e.status >= 400 ? (
                            <StatusMark status="failed" word={`HTTP ${e.status}`} />
                          ) : (
                            <StatusMark status="passed" />
                          )}
                        </span>
                        <span className={e.status !== null && e.status >= 400 ? 'text-fail' : ''}>
                          {e.status ?? '—'}
                        </span>
                        <DurationBar ms={e.duration_ms} />
                      </li>
                    );
                  })}
                </ol>
              </div>
              {shown.length >= CALLBACK_LIMIT ? (
                <p className="muted callbacks-limit" data-testid="callbacks-limit">
                  The newest {CALLBACK_LIMIT.toLocaleString('en')} callbacks are listed; every one is in the
                  event store (dets-console events --kind callback).
                </p>
              ) : null}
            </>
          )}
        </section>
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
