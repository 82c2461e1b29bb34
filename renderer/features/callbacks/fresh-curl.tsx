/**
 * "curl with a fresh token" (issue 26 item 5, copy that stays true): "Copy as curl" repeats the
 * recorded X-Session-ID, which the bank refuses (401 `exp`) minutes later. For a sandbox callback
 * the console holds the signing key, so the core signs the same claims again with a fresh
 * iat/exp (bank.freshSession) and the curl carries that token, its expiry said beside it. A
 * callback of a real environment names why it cannot get one.
 */
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { SANDBOX_ENVIRONMENT_ID } from '../../../electron/contract/schemas/service';
import { useFreshSession } from '../../data/callbacks';
import { Allowed } from '../../shared/allowed';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { curlCommand, readEvent } from '../../shared/event-http';
import { formatLocal } from '../../shared/format';

/** The recorded request with `token` as its X-Session-ID, as a curl command (null without a listener URL). */
export function freshCurl(d: EventDetail, token: string, listenerUrl: string | null): string | null {
  const request = readEvent(d).request;
  if (!request) return null;
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([k]) => k.toLowerCase() !== 'x-session-id'),
  );
  return curlCommand({ ...request, headers: { ...headers, 'X-Session-ID': token } }, listenerUrl);
}

export function FreshCurl({
  d,
  compact,
  listenerUrl,
}: {
  d: EventDetail;
  compact: boolean;
  listenerUrl: string | null;
}) {
  const fresh = useFreshSession();
  if (compact || !listenerUrl || !readEvent(d).request) return null;
  if (d.environment?.id !== SANDBOX_ENVIRONMENT_ID)
    return d.environment ? (
      <p className="panel-note" data-testid="callback-fresh-curl-unavailable">
        A fresh token for this callback needs {d.environment.name}’s service key, which the console does not
        hold: ask that service for a new sign-in.
      </p>
    ) : null;
  const got = fresh.data && fresh.variables === d.id ? fresh.data : null;
  const curl = got ? freshCurl(d, got.token, listenerUrl) : null;
  return (
    <div className="callback-fresh-curl" data-testid="callback-fresh-curl">
      {/* bank.freshSession is an operator's on a hub (team-roles.ts): hidden for a viewer. */}
      <Allowed method="bank.freshSession">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => fresh.mutate(d.id)}
          disabled={fresh.isPending}
          data-testid="callback-fresh-curl-make"
          title="The sandbox signs the same flow, obj and sub again with a fresh iat and exp"
        >
          {fresh.isPending ? 'Signing…' : got ? 'Sign again' : 'curl with a fresh token'}
        </button>
      </Allowed>
      {curl && got ? (
        <>
          <CopyButton text={() => curl} label="Copy the fresh curl" testId="callback-fresh-curl-copy" />
          <span className="muted" data-testid="callback-fresh-curl-expiry" title={got.expires_at}>
            its X-Session-ID (kid {got.kid ?? '—'}) expires {formatLocal(got.expires_at)}
          </span>
          <pre className="callback-fresh-curl-text" data-testid="callback-fresh-curl-text">
            {curl}
          </pre>
        </>
      ) : null}
      {fresh.error ? (
        <ErrorPanel title="No fresh token" error={fresh.error} testId="callback-fresh-curl-error" />
      ) : null}
    </div>
  );
}
