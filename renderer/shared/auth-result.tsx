import type { MethodOutput } from '../../electron/contract';
import { CopyButton } from './copy-button';
import { ChecksList, DecodedPart, VerdictBanner } from './report-views';
import { TokenView } from './token-view';
import { openInInspector } from './inspector-handoff';
import { ExchangeDetails, ExchangeLine } from './exchange-view';

export type AuthenticateResult = MethodOutput<'service.authenticate'>;

/**
 * What authenticate answered: the exchange (status, time, the raw error and what it probably
 * means), then the session_token decoded and checked against the service's JWKS.
 */
export function AuthResultView({
  result,
  testId,
  jwksUrl,
}: {
  result: AuthenticateResult;
  testId: string;
  /** The environment's JWKS URL, so the Inspector can verify the session_token too. */
  jwksUrl: string | null;
}) {
  const { exchange, session_token: session, session_report: report } = result;
  return (
    <div
      className={`auth-result ${exchange.ok ? 'is-ok' : 'is-failed'}`}
      data-testid={testId}
      data-ok={String(exchange.ok)}
    >
      <div className="auth-result-head">
        <ExchangeLine exchange={exchange} />
      </div>
      {!exchange.ok ? (
        <ExchangeDetails exchange={exchange} />
      ) : (
        <details className="exchange auth-exchange">
          <summary>Request and response</summary>
          <ExchangeDetails exchange={exchange} />
        </details>
      )}
      {session ? (
        <section className="session-token" aria-label="session_token" data-testid="session-token">
          <div className="session-token-head">
            <h3 className="subhead">
              <code>session_token</code>
            </h3>
            <span className="panel-spacer" />
            <CopyButton text={() => session} label="Copy" testId="copy-session-token" />
            <button
              type="button"
              className="btn btn-small"
              onClick={() => openInInspector({ token: session, ...(jwksUrl ? { keyUrl: jwksUrl } : {}) })}
              data-testid="session-open-inspector"
            >
              Open in Inspector
            </button>
          </div>
          <TokenView token={session} testId="session-token-text" />
          {report ? (
            <div className="session-report" data-testid="session-checks">
              <VerdictBanner report={report} />
              <ChecksList checks={report.checks} title="session_token checks" />
              <DecodedPart title="Claims" kind="payload" value={report.payload} />
            </div>
          ) : (
            <p className="muted">The session_token was not checked.</p>
          )}
        </section>
      ) : exchange.ok ? (
        <p className="text-warn">The answer carried no session_token.</p>
      ) : null}
    </div>
  );
}
