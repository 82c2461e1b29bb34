import { CopyButton } from '../../shared/copy-button';
import { CutValue } from '../../shared/cut-value';
import { ErrorPanel } from '../../shared/error-panel';
import { JwksKeyReport } from '../../shared/jwks-key-report';
import { formatLocal, formatMs } from '../../shared/format';
import { DecodedPart } from '../../shared/report-views';
import { TokenView } from '../../shared/token-view';
import { EventDetailView } from '../../shared/event-detail';
import { compactNote } from '../../shared/event-http';
import { useEventDetail, useListenerUrl } from '../../data/events';
import { sessionIdOf } from './callbacks-model';
import { FreshCurl } from './fresh-curl';
import { RecheckCompare } from './recheck-compare';
import { useRecheck, useReplay } from '../../data/callbacks';
import { Allowed } from '../../shared/allowed';

/** One callback in the one event detail view, plus what only callbacks have: re-check, replay, the token, the JWKS then. */
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
  const detail = useEventDetail(id);
  const listenerUrl = useListenerUrl(detail.data);
  if (detail.error)
    return <ErrorPanel title="Callback unavailable" error={detail.error} testId="callback-error" />;
  const d = detail.data;
  if (!d) return <p className="muted">Loading the callback…</p>;
  const token = sessionIdOf(d);
  // A compact record (store/records.ts) keeps no X-Session-ID: nothing to re-check or replay.
  const compact = compactNote(d) !== null;
  return (
    <div className="callback-detail" data-testid="callback-detail" data-event-id={d.id}>
      <EventDetailView detail={d} listenerUrl={listenerUrl} onClose={onClose}>
        <FreshCurl d={d} compact={compact} listenerUrl={listenerUrl} />
        <CallbackActions d={d} compact={compact} onOpen={onOpen} />
        <SessionToken token={token} compact={compact} />
        {d.token ? (
          <div className="callback-decoded">
            <DecodedPart title="Header" kind="header" value={d.token.header} />
            {compact ? (
              <p className="muted" data-testid="callback-payload-not-kept">
                Payload not kept: the token was not proven, so its claims are whatever the sender wrote.
              </p>
            ) : (
              <DecodedPart title="Payload" kind="payload" value={d.token.payload} />
            )}
          </div>
        ) : null}

        {d.jwks ? <JwksThen jwks={d.jwks} /> : null}
      </EventDetailView>
    </div>
  );
}

type Detail = NonNullable<ReturnType<typeof useEventDetail>['data']>;

/** Re-check and replay, with what each gave: the comparison, the new callback, or the refusal. */
function CallbackActions({
  d,
  compact,
  onOpen,
}: {
  d: Detail;
  compact: boolean;
  onOpen: (id: string) => void;
}) {
  const recheck = useRecheck();
  const replay = useReplay();
  return (
    <>
      <div className="callback-actions">
        <Allowed method="bank.recheck">
          <button
            type="button"
            className="btn"
            onClick={() => recheck.mutate(d.id)}
            disabled={recheck.isPending || compact}
            data-testid="callback-recheck"
            title="Run the X-Session-ID checks again with the service JWKS as it is now"
          >
            {recheck.isPending ? 'Re-checking…' : 'Re-check'}
          </button>
        </Allowed>
        <Allowed method="bank.replay">
          <button
            type="button"
            className="btn"
            onClick={() => replay.mutate(d.id)}
            disabled={replay.isPending || compact}
            data-testid="callback-replay"
          >
            {replay.isPending ? 'Replaying…' : 'Replay with a fresh token'}
          </button>
        </Allowed>
      </div>
      <p className="panel-note callback-replay-note">
        Replay: the original token has most likely expired, so the sandbox signs a new one with a fresh
        iat/exp and the same obj/sub, and sends the callback again. The replay shows up as a new callback.
      </p>
      {recheck.data && recheck.variables === d.id ? <RecheckCompare recorded={d} now={recheck.data} /> : null}
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
    </>
  );
}

/** The callback's X-Session-ID, coloured, or why it is not there. */
function SessionToken({ token, compact }: { token: string | null; compact: boolean }) {
  return (
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
          <p className="muted">
            {compact
              ? 'Not kept: a compact record keeps only the token’s header.'
              : 'No X-Session-ID header.'}
          </p>
        )}
      </div>
    </section>
  );
}

/** The service JWKS as the callback's check saw it. */
function JwksThen({ jwks }: { jwks: NonNullable<Detail['jwks']> }) {
  return (
    <section
      className="panel"
      aria-label="Service JWKS at that moment"
      data-testid="callback-jwks"
      data-stale={String(jwks.stale)}
    >
      <h2 className="panel-title">
        Service JWKS at that moment
        {jwks.stale ? (
          <span className="badge badge-fail">stale</span>
        ) : (
          <span className="badge badge-pass">fresh</span>
        )}
      </h2>
      <dl className="kv">
        <dt>URL</dt>
        <dd>
          <CutValue value={jwks.url} what="JWKS URL" testId="callback-jwks-url" />
        </dd>
        <dt>kids</dt>
        <dd>
          {jwks.kids.length ? (
            jwks.kids.map((k) => <CutValue key={k} value={k} what="kid" testId="callback-jwks-kid" />)
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
        <dt>fetched</dt>
        <dd>{formatLocal(jwks.fetched_at) ?? 'never'}</dd>
        {jwks.error ? (
          <>
            <dt>error</dt>
            <dd className="text-fail">{jwks.error}</dd>
          </>
        ) : null}
        <JwksKeyReport jwks={jwks} testId="callback-jwks" />
      </dl>
    </section>
  );
}
