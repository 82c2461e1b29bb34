import { useState, type ReactNode } from 'react';
import type { EventDetail } from '../../electron/contract/schemas/events';
import { CopyButton } from './copy-button';
import { saveTextFile } from './download';
import { formatLocal, formatMs } from './format';
import { httpRequestText, httpResponseText } from './http-text';
import { ChecksList } from './report-views';
import { StatusMark } from './status-mark';
import { DurationBar } from './duration-bar';
import { curlCommand, rawRequest, rawResponse, readEvent, type EventReading } from './event-http';
import './event-detail.css';

/**
 * When the X-Session-ID a copied curl carries stops verifying (issue 26 item 5: "Copy as curl"
 * runs only while its token lives, about six minutes, and nothing said so).
 */
function TokenExpiry({ detail }: { detail: EventDetail }) {
  const exp = detail.token?.payload?.exp;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return null;
  const at = new Date(exp * 1000).toISOString();
  const past = exp * 1000 <= Date.now();
  return (
    <span className={past ? 'text-warn' : 'muted'} data-testid="event-curl-expiry" title={at}>
      {past
        ? `its X-Session-ID expired ${formatLocal(at)}: the copy is answered 401 exp`
        : `its X-Session-ID expires ${formatLocal(at)}`}
    </span>
  );
}

type BodyView = 'pretty' | 'raw';

/**
 * One detail view for every stored event (issue 13 item 1): notification, callback, exchange,
 * refused request and trace alike show the request line, headers, body (pretty or raw), the
 * response, the time against the 1 s budget, the verdict with its checks, the outcome and its
 * reason; Copy as curl (an absolute URL to the listener that received it), Copy as raw HTTP, and
 * Export of this one event as JSON. `children` adds what only one kind has (a callback's re-check).
 */
export function EventDetailView({
  detail: d,
  listenerUrl,
  onClose,
  children,
}: {
  detail: EventDetail;
  /** The listener that received the event (bank status' url); null for absolute URLs. */
  listenerUrl: string | null;
  onClose: () => void;
  children?: ReactNode;
}) {
  const [view, setView] = useState<BodyView>('pretty');
  const r = readEvent(d);
  const curl = r.request ? curlCommand(r.request, listenerUrl) : null;
  const raw = r.request
    ? `${rawRequest(r.request, listenerUrl)}${r.response ? `\n\n${rawResponse(r.response)}` : ''}`
    : null;
  const exportJson = () =>
    saveTextFile(`${JSON.stringify(d, null, 2)}\n`, `dets-event-${d.id}.json`, 'application/json');

  return (
    <article
      className="event-detail"
      data-testid="event-detail"
      data-event-id={d.id}
      data-kind={r.kind}
      data-outcome={r.outcome.status}
      data-status={r.response?.status ?? ''}
      aria-label={`${r.kind} detail`}
    >
      <header className="event-detail-head">
        <span className="badge">{r.kind}</span>
        <h2 className="event-detail-line" data-testid="event-request-line">
          <code title={r.request ? `${r.request.method} ${r.request.url}` : (d.path ?? undefined)}>
            {r.request ? `${r.request.method} ${r.request.url}` : (d.path ?? d.warning ?? d.kind)}
          </code>
        </h2>
        {r.request ? (
          <CopyButton
            text={() => r.request!.url}
            label="⧉"
            ariaLabel={`Copy path ${r.request.url}`}
            testId="event-copy-path"
          />
        ) : null}
        <StatusMark status={r.outcome.status === 'failed' ? 'failed' : 'passed'} word={r.outcome.word} />
        {r.response ? <span className="muted">HTTP {r.response.status}</span> : null}
        <DurationBar ms={r.duration_ms} />
        <span className="panel-spacer" />
        <button type="button" className="btn btn-small" onClick={onClose} data-testid="event-detail-close">
          Close
        </button>
      </header>
      <p className="muted event-detail-meta">
        <time dateTime={d.at} title={d.at}>
          {formatLocal(d.at)}
        </time>
        {d.remote ? ` · from ${d.remote}` : ''}
        {d.environment ? (
          <span
            data-testid="event-environment"
            title="The environment whose service published the token's kid (DESIGN.md “Environments”)"
          >
            {` · environment ${d.environment.name}`}
          </span>
        ) : null}
        {d.transaction_id ? ` · transaction_id ${d.transaction_id}` : ''}
        {d.obj ? ` · obj ${d.obj}` : ''}
        {d.sub ? ` · sub ${d.sub}` : ''}
        {r.duration_ms !== null ? ` · ${formatMs(r.duration_ms)} of the 1 s budget` : ''}
      </p>
      {r.outcome.reason ? (
        <div
          className={`banner ${r.outcome.status === 'failed' ? 'banner-fail' : 'banner-info'}`}
          role="status"
          data-testid="event-reason"
        >
          <div className="banner-body">
            <strong>{r.outcome.word}</strong>
            <span>{r.outcome.reason}</span>
          </div>
        </div>
      ) : null}
      {r.compact ? (
        <p className="banner banner-info" data-testid="event-compact">
          {r.compact}
        </p>
      ) : null}
      {d.warning && d.warning !== r.outcome.reason ? (
        <p className="banner banner-warn" data-testid="event-warning">
          {d.warning}
        </p>
      ) : null}
      <div className="event-detail-actions">
        {curl ? <CopyButton text={() => curl} label="Copy as curl" testId="event-copy-curl" /> : null}
        {curl ? <TokenExpiry detail={d} /> : null}
        {raw ? <CopyButton text={() => raw} label="Copy as raw HTTP" testId="event-copy-raw" /> : null}
        <button type="button" className="btn btn-small" onClick={exportJson} data-testid="event-export">
          Export JSON
        </button>
        <span className="panel-spacer" />
        <span className="event-body-view" role="radiogroup" aria-label="Bodies">
          {(['pretty', 'raw'] as const).map((v) => (
            <button
              key={v}
              type="button"
              role="radio"
              aria-checked={view === v}
              className={`btn btn-small ${view === v ? 'is-active' : ''}`}
              onClick={() => setView(v)}
              data-testid={`event-view-${v}`}
            >
              {v}
            </button>
          ))}
        </span>
      </div>
      {d.checks ? <ChecksList checks={d.checks} title="Checks (first failure decides)" /> : null}
      {d.forward ? <ForwardLine forward={d.forward} checks={d.checks} /> : null}
      {children}
      <HttpPanels reading={r} view={view} listenerUrl={listenerUrl} />
      {r.trace ? <TraceSteps reading={r} /> : null}
    </article>
  );
}

/**
 * Forward mode's backend: where it was and what it answered. Its answer is judged by the one
 * answer judge, and those checks are the callback's own (listed above since issue 24); a callback
 * recorded before that kept them apart (`time` among them), so they are listed here.
 */
function ForwardLine({
  forward: f,
  checks,
}: {
  forward: NonNullable<EventDetail['forward']>;
  checks: EventDetail['checks'];
}) {
  const title = `Forwarded to ${f.url}: ${f.status !== null ? `HTTP ${f.status}` : (f.error ?? 'no answer')} in ${formatMs(f.duration_ms)}`;
  const judgedAbove = f.verdicts.length === 0 || (checks ?? []).some((c) => c.id === 'reachable');
  if (!judgedAbove) return <ChecksList checks={f.verdicts} title={title} />;
  return (
    <p className="muted" data-testid="event-forward">
      {title}; its answer is what the checks above judge.
    </p>
  );
}

function HttpPanels({
  reading: r,
  view,
  listenerUrl,
}: {
  reading: EventReading;
  view: BodyView;
  listenerUrl: string | null;
}) {
  const request = r.request
    ? view === 'raw'
      ? rawRequest(r.request, listenerUrl)
      : httpRequestText(r.request)
    : null;
  const response = r.response
    ? view === 'raw'
      ? rawResponse(r.response)
      : httpResponseText(r.response)
    : null;
  return (
    <div className="event-http">
      <HttpSide
        side="request"
        text={request}
        view={view}
        cut={r.cut.request}
        missing={
          r.compact
            ? 'Not stored: a compact record keeps only its sizes.'
            : 'Not stored (refused before it could be read).'
        }
      />
      <HttpSide
        side="response"
        text={response}
        view={view}
        cut={r.cut.response}
        missing="No response stored."
      />
    </div>
  );
}

/** "cut" beside a message's title, its note (what was cut, the sizes as received) on hover and below. */
function CutBadge({ note, testId }: { note: string | null; testId: string }) {
  if (!note) return null;
  return (
    <>
      {' '}
      <span className="badge badge-warn" title={note} data-testid={testId}>
        cut
      </span>
      <span className="muted event-cut-note" data-testid={`${testId}-note`}>
        {note}
      </span>
    </>
  );
}

function TraceSteps({ reading }: { reading: EventReading }) {
  const steps = reading.trace?.steps ?? [];
  return (
    <section className="panel" aria-label="Steps" data-testid="event-trace-steps">
      <h3 className="panel-title">Steps</h3>
      <ol className="event-trace-steps">
        {steps.map((s) => (
          <li key={`${s.id}-${s.at}`} data-step={s.id} data-status={s.status}>
            <StatusMark status={s.status} /> <strong>{s.title}</strong>{' '}
            <span className="muted">{s.detail}</span>
            {s.duration_ms !== null ? <span className="muted"> · {formatMs(s.duration_ms)}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** One side of an exchange as HTTP text (`event-request` / `event-response`), or why it is missing. */
function HttpSide({
  side,
  text,
  view,
  cut,
  missing,
}: {
  side: 'request' | 'response';
  text: string | null;
  view: BodyView;
  cut: string | null;
  missing: string;
}) {
  const title = side === 'request' ? 'Request' : 'Response';
  return (
    <section className="panel" aria-label={title}>
      <h3 className="panel-title">
        {title}
        <CutBadge note={cut} testId={`event-${side}-cut`} />
      </h3>
      {text ? (
        <pre className="http-text" data-testid={`event-${side}`} data-view={view}>
          {text}
        </pre>
      ) : (
        <p className="muted">{missing}</p>
      )}
    </section>
  );
}
