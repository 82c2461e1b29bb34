import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { formatLocal, formatMs } from '../../shared/format';
import { httpRequestText, httpResponseText } from '../../shared/http-text';
import { JwksKeyReport } from '../../shared/jwks-key-report';
import { ChecksList, DecodedPart } from '../../shared/report-views';
import { StatusMark } from '../../shared/status-mark';
import { TokenView } from '../../shared/token-view';
import { curlOf, routeOf, sessionIdOf } from './callbacks-model';
import { DurationBar } from './duration-bar';
import { useCallbackDetail, useRecheck, useReplay } from './use-callbacks';

/** One callback in full: the token and its checks, the JWKS then, forward verdicts, request and response. */
export function CallbackDetail({
  id,
  onClose,
  onOpen,
}: {
  id: string;
  onClose: () => void;
  /** Opens another callback (the replay) in this panel. */
  onOpen: (id: string) => void;
}) {
  const detail = useCallbackDetail(id);
  const recheck = useRecheck();
  const replay = useReplay();
  if (detail.error)
    return <ErrorPanel title="Callback unavailable" error={detail.error} testId="callback-error" />;
  const d = detail.data;
  if (!d) return <p className="muted">Loading the callback…</p>;
  const token = sessionIdOf(d);
  const failed = d.checks?.find((c) => c.status === 'failed') ?? null;
  const curl = curlOf(d);
  const request = d.request
    ? httpRequestText({
        method: d.request.method ?? d.method ?? 'GET',
        url: d.request.url ?? d.path ?? '',
        headers: d.request.headers,
        body: d.request.body,
      })
    : null;
  const response = d.response
    ? httpResponseText({
        status: d.response.status ?? d.status ?? 0,
        headers: d.response.headers,
        body: d.response.body,
      })
    : null;
  return (
    <div className="callback-detail" data-testid="callback-detail" data-event-id={d.id}>
      <div className="callback-detail-head">
        <h2>
          <code>
            {d.method ?? 'GET'} {routeOf(d.path)}
          </code>
        </h2>
        {d.failed_check ? (
          <StatusMark status="failed" word={`failed: ${d.failed_check}`} />
        ) : (
          <StatusMark status="passed" />
        )}
        <span className="muted">HTTP {d.status ?? '—'}</span>
        <DurationBar ms={d.duration_ms} />
        <span className="panel-spacer" />
        <button type="button" className="btn btn-small" onClick={onClose} data-testid="callback-detail-close">
          Close
        </button>
      </div>
      <p className="muted">
        {formatLocal(d.at)} · from {d.remote ?? 'unknown'}
        {d.obj ? (
          <>
            {' '}
            · obj <code>{d.obj}</code>
          </>
        ) : null}
        {d.sub ? (
          <>
            {' '}
            · sub <code>{d.sub}</code>
          </>
        ) : null}
      </p>
      {d.warning ? (
        <p className="banner banner-warn" data-testid="callback-warning">
          {d.warning}
        </p>
      ) : null}

      {failed ? (
        <div className="banner banner-fail" role="status" data-testid="callback-failure">
          <span className="banner-icon" aria-hidden="true">
            ✗
          </span>
          <div className="banner-body">
            <strong>
              {failed.title} (<code>{failed.id}</code>) failed
            </strong>
            <span>{failed.detail}</span>
          </div>
        </div>
      ) : null}
      <div className="callback-actions">
        <button
          type="button"
          className="btn"
          onClick={() => recheck.mutate(d.id)}
          disabled={recheck.isPending}
          data-testid="callback-recheck"
          title="Run the X-Session-ID checks again with the service JWKS as it is now"
        >
          {recheck.isPending ? 'Re-checking…' : 'Re-check'}
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => replay.mutate(d.id)}
          disabled={replay.isPending}
          data-testid="callback-replay"
        >
          {replay.isPending ? 'Replaying…' : 'Replay with a fresh token'}
        </button>
        {curl ? <CopyButton text={() => curl} label="Copy as curl" testId="callback-copy-curl" /> : null}
      </div>
      <p className="panel-note callback-replay-note">
        Replay: the original token has most likely expired, so the sandbox signs a new one with a fresh
        iat/exp and the same obj/sub, and sends the callback again. The replay shows up as a new callback.
      </p>
      {recheck.error ? (
        <ErrorPanel title="Re-check failed" error={recheck.error} testId="callback-recheck-error" />
      ) : null}
      {replay.error ? (
        <ErrorPanel title="Replay failed" error={replay.error} testId="callback-replay-error" />
      ) : null}
      {replay.data ? (
        <p className="banner banner-info" data-testid="callback-replay-result" data-event-id={replay.data.id}>
          Replayed: HTTP {replay.data.status ?? '—'},{' '}
          {replay.data.failed_check ? `failed ${replay.data.failed_check}` : 'all checks passed'},{' '}
          {formatMs(replay.data.duration_ms)}.
          <button
            type="button"
            className="btn btn-small btn-link"
            onClick={() => onOpen(replay.data.id)}
            data-testid="callback-open-replay"
          >
            Open the replay
          </button>
        </p>
      ) : null}

      {d.checks ? <ChecksList checks={d.checks} title="X-Session-ID checks" /> : null}
      <section className="panel" aria-label="X-Session-ID">
        <h2 className="panel-title">
          X-Session-ID
          <span className="panel-spacer" />
          {token ? <CopyButton text={() => token} testId="callback-copy-token" /> : null}
        </h2>
        <div className="panel-body">
          {token ? (
            <TokenView token={token} testId="callback-token" />
          ) : (
            <p className="muted">No X-Session-ID header.</p>
          )}
        </div>
      </section>
      {d.token ? (
        <div className="callback-decoded">
          <DecodedPart title="Header" kind="header" value={d.token.header} />
          <DecodedPart title="Payload" kind="payload" value={d.token.payload} />
        </div>
      ) : null}

      {d.jwks ? (
        <section
          className="panel"
          aria-label="Service JWKS at that moment"
          data-testid="callback-jwks"
          data-stale={String(d.jwks.stale)}
        >
          <h2 className="panel-title">
            Service JWKS at that moment
            {d.jwks.stale ? (
              <span className="badge badge-fail">stale</span>
            ) : (
              <span className="badge badge-pass">fresh</span>
            )}
          </h2>
          <dl className="kv">
            <dt>URL</dt>
            <dd>
              <code>{d.jwks.url}</code>
            </dd>
            <dt>kids</dt>
            <dd>
              {d.jwks.kids.length ? (
                d.jwks.kids.map((k) => (
                  <code key={k} className="kid">
                    {k}
                  </code>
                ))
              ) : (
                <span className="muted">none</span>
              )}
            </dd>
            <dt>fetched</dt>
            <dd>{formatLocal(d.jwks.fetched_at) ?? 'never'}</dd>
            {d.jwks.error ? (
              <>
                <dt>error</dt>
                <dd className="text-fail">{d.jwks.error}</dd>
              </>
            ) : null}
            <JwksKeyReport jwks={d.jwks} testId="callback-jwks" />
          </dl>
        </section>
      ) : null}

      {d.forward ? (
        <section className="panel" aria-label="Forwarded to your backend" data-testid="callback-forward">
          <h2 className="panel-title">Your backend’s answer</h2>
          <p className="panel-body">
            <code>{d.forward.url}</code> →{' '}
            {d.forward.status !== null ? `HTTP ${d.forward.status}` : 'no answer'} in{' '}
            {formatMs(d.forward.duration_ms)}
            {d.forward.error ? <span className="text-fail"> · {d.forward.error}</span> : null}
          </p>
          <ChecksList checks={d.forward.verdicts} title="Verdicts" />
        </section>
      ) : null}

      <div className="callback-http">
        <section className="panel">
          <h2 className="panel-title">
            Request
            <span className="panel-spacer" />
            {request ? <CopyButton text={() => request} testId="callback-copy-request" /> : null}
          </h2>
          {request ? (
            <pre className="http-text" data-testid="callback-request">
              {request}
            </pre>
          ) : (
            <p className="muted">Not stored.</p>
          )}
        </section>
        <section className="panel">
          <h2 className="panel-title">
            Response
            <span className="panel-spacer" />
            {response ? <CopyButton text={() => response} testId="callback-copy-response" /> : null}
          </h2>
          {response ? (
            <pre className="http-text" data-testid="callback-response">
              {response}
            </pre>
          ) : (
            <p className="muted">No response stored.</p>
          )}
        </section>
      </div>
    </div>
  );
}
