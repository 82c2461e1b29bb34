import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { DecodedPart } from '../../shared/report-views';
import { TokenView } from '../../shared/token-view';
import { AuthResultView } from '../../shared/auth-result';
import { openTokenInInspector } from './composer-history';
import type { ComposerState } from './use-composer';
import { Allowed } from '../../shared/allowed';

/** The Composer's right column: the signed token and what it can be used for, or how to start. */
export function ComposerOutput({ c }: { c: ComposerState }) {
  const { signed, stale, send, env } = c;
  return (
    <div
      className="composer-output"
      data-testid="composer-output"
      data-state={signed ? (stale ? 'stale' : 'signed') : 'empty'}
    >
      {signed ? (
        <>
          <TokenPanel c={c} />
          {signed.warnings.length > 0 ? (
            <ul className="hints" data-testid="composer-warnings" aria-label="Hints">
              <li className="hints-title">Hints, not errors: the token is signed as asked</li>
              {signed.warnings.map((w) => (
                <li key={w} data-testid="composer-warning">
                  {w}
                </li>
              ))}
            </ul>
          ) : null}
          <div className="decoded-grid composer-decoded">
            <DecodedPart title="Header" kind="header" value={signed.header} />
            <DecodedPart title="Claims" kind="payload" value={signed.payload} />
          </div>
          {send.error ? (
            <ErrorPanel title="Not sent" error={send.error} testId="composer-send-error" />
          ) : null}
          {send.data ? (
            <AuthResultView
              result={send.data}
              testId="composer-send-result"
              jwksUrl={env?.effective_jwks_url ?? null}
            />
          ) : null}
        </>
      ) : (
        <div className="empty" data-testid="composer-empty">
          <h2>Sign a token</h2>
          <p>
            Pick the key, the customer (<code>obj</code>) and who acts (<code>sub</code>), then Sign. The
            token appears here coloured like the Inspector’s, with its decoded header and claims, ready to
            copy as a header or a curl, to open in the Inspector, or to send to the active environment’s
            authenticate endpoint.
          </p>
        </div>
      )}
    </div>
  );
}

/** The token, coloured, with its copy, Inspector and send actions. */
function TokenPanel({ c }: { c: ComposerState }) {
  const { stale, send, env, keyList, signedFor } = c;
  const signed = c.signed!;
  return (
    <section className="panel" aria-labelledby="composer-token-title">
      <h2 id="composer-token-title" className="panel-title">
        Token
        {stale ? (
          <span className="badge badge-warn" data-testid="composer-stale">
            the form changed: sign again
          </span>
        ) : null}
      </h2>
      <div className="panel-body composer-token">
        <TokenView token={signed.token} testId="composer-token" />
        <div className="composer-actions">
          <CopyButton text={() => signed.token} label="Copy token" testId="copy-token" />
          <CopyButton
            text={() => signed.header_line}
            label="Copy CX-Authorization header"
            testId="copy-header-line"
          />
          {signed.curl ? (
            <CopyButton text={() => signed.curl ?? ''} label="Copy curl" testId="copy-curl" />
          ) : (
            <button
              type="button"
              className="btn btn-small"
              disabled
              title="The active environment needs a base URL and a counterparty GUID for a curl command"
              data-testid="copy-curl"
            >
              Copy curl
            </button>
          )}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => openTokenInInspector({ token: signed.token, ...signedFor }, keyList)}
            data-testid="open-in-inspector"
          >
            Open in Inspector
          </button>
          <span className="panel-spacer" />
          <Allowed method="service.authenticate">
            <button
              type="button"
              className="btn btn-small btn-primary"
              onClick={() => send.mutate({ token: signed.token })}
              disabled={send.isPending}
              title={`POST …/jwk/authenticate in ${env?.name ?? 'the active environment'} with this token`}
              data-testid="composer-send"
            >
              {send.isPending ? 'Sending…' : `Send to ${env?.name ?? 'the service'}`}
            </button>
          </Allowed>
        </div>
      </div>
    </section>
  );
}
