import { ErrorPanel } from '../../shared/error-panel';
import { formatClock } from '../../shared/format';
import { RowCheckbox } from '../../shared/row-selection';
import { StatusMark } from '../../shared/status-mark';
import { DurationBar } from '../../shared/duration-bar';
import { CALLBACK_LIMIT } from '../../data/callbacks';
import { isFailed, routeOf } from './callbacks-model';
import type { CallbacksPageState } from './use-callbacks-page';

type CallbackEvent = CallbacksPageState['shown'][number];

/** The list panel: loading, empty, or the virtualized rows newest first. */
export function CallbackList({ p }: { p: CallbacksPageState }) {
  const { callbacks, shown, failedOnly, settledText, virtualizer } = p;
  const unfiltered = !failedOnly && !settledText.trim();
  return (
    <section className="panel callbacks-list-panel" aria-label="Callbacks">
      {callbacks.error ? (
        <ErrorPanel title="Callbacks unavailable" error={callbacks.error} testId="callbacks-error" />
      ) : !callbacks.data ? (
        <p className="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <div className="empty" data-testid="callbacks-empty">
          <h2>{unfiltered ? 'No callback yet' : 'No callback matches'}</h2>
          <p>
            {unfiltered
              ? 'Run the registration flow (Sandbox page) or point the service at your bank URL (Bank page): each callback shows up here as it arrives.'
              : 'Clear the filter to see the others.'}
          </p>
        </div>
      ) : (
        <>
          <div className="callback-row callback-row-head" aria-hidden="true">
            <span />
            <span>time</span>
            <span>route</span>
            <span>obj</span>
            <span>outcome</span>
            <span>HTTP</span>
            <span>duration</span>
          </div>
          <div
            className="callbacks-list"
            ref={p.scroller}
            tabIndex={0}
            data-testid="callbacks-list"
            aria-label="Callbacks, newest first"
          >
            <ol className="callbacks-rows" style={{ height: virtualizer.getTotalSize() }}>
              {virtualizer.getVirtualItems().map((item) => (
                <CallbackRow key={shown[item.index]!.id} e={shown[item.index]!} top={item.start} p={p} />
              ))}
            </ol>
          </div>
          {shown.length >= CALLBACK_LIMIT ? (
            <p className="muted callbacks-limit" data-testid="callbacks-limit">
              The newest {CALLBACK_LIMIT.toLocaleString('en')} callbacks are listed; every one is in the event
              store (dets-console events --kind callback).
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

/** One callback: time, route, obj, outcome, HTTP status and duration against the budget. */
function CallbackRow({ e, top, p }: { e: CallbackEvent; top: number; p: CallbacksPageState }) {
  const { selectedId, cursorId } = p;
  const httpFailed = e.status !== null && e.status >= 400;
  return (
    <li
      className={`callback-row ${isFailed(e) ? 'is-failed' : 'is-passed'} ${e.id === selectedId ? 'is-selected' : ''} ${e.id === cursorId ? 'is-cursor' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      data-testid="callback-row"
      data-event-id={e.id}
      data-failed-check={e.failed_check ?? ''}
      data-cursor={String(e.id === cursorId)}
      aria-selected={e.id === selectedId}
      onClick={() => p.select(e.id)}
    >
      <RowCheckbox
        checked={p.selection.isSelected(e.id)}
        onToggle={() => p.selection.toggle(e.id)}
        label={`Select the ${routeOf(e.path)} callback at ${formatClock(e.at)}`}
      />
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
        ) : httpFailed ? (
          <StatusMark status="failed" word={`HTTP ${e.status}`} />
        ) : (
          <StatusMark status="passed" />
        )}
      </span>
      <span className={httpFailed ? 'text-fail' : ''}>{e.status ?? '—'}</span>
      <DurationBar ms={e.duration_ms} />
    </li>
  );
}
