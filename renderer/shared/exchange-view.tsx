/** One exchange with the service as the Service page, the Composer and rotation show it. */
import { GUID_SOURCE } from '../../electron/contract/schemas/ids';
import type { Exchange } from '../../electron/contract/schemas/service';
import { CopyButton } from './copy-button';
import { formatMs } from './format';
import { httpRequestText, httpResponseText } from './http-text';
import { StatusMark } from './status-mark';
import './exchange.css';

export const OPERATION_LABELS: Record<Exchange['operation'], string> = {
  authenticate: 'authenticate',
  'register-jwk': 'register JWK',
  'update-jwk': 'update JWK',
  'list-jwks': 'list JWKs',
  'fetch-jwks': 'fetch JWKS',
};

const GUID_IN_PATH = new RegExp(GUID_SOURCE, 'g');

/**
 * The path of a URL, GUIDs shortened, for one line of the history (the base URL is the
 * environment's and the same on every line; the full URL is in the tooltip and the request).
 */
export function pathOf(url: string): string {
  let path: string;
  try {
    const u = new URL(url);
    path = u.pathname + u.search;
  } catch {
    path = url;
  }
  return path.replace(GUID_IN_PATH, (g) => `${g.slice(0, 8)}…`);
}

/** "200", "401", or "no answer" when the request never got one. */
export function statusWords(e: Exchange): string {
  return e.response ? `HTTP ${e.response.status}` : 'no answer';
}

/** One line for an exchange: ok or failed, what, the status, how long. */
export function ExchangeLine({ exchange: e }: { exchange: Exchange }) {
  return (
    <span className="exchange-line" data-testid="exchange-line" data-ok={String(e.ok)}>
      <StatusMark status={e.ok ? 'passed' : 'failed'} word={e.ok ? 'ok' : 'failed'} />
      <span className="exchange-op">{OPERATION_LABELS[e.operation]}</span>
      <code className="exchange-path" title={e.request.url}>
        {e.request.method} {pathOf(e.request.url)}
      </code>
      <span className={`exchange-status ${e.ok ? '' : 'text-fail'}`} data-testid="exchange-status">
        {statusWords(e)}
      </span>
      <span className="exchange-ms" title="duration">
        {formatMs(e.duration_ms)}
      </span>
    </span>
  );
}

/** What went wrong, raw, and what it probably means. */
export function ExchangeProblem({ exchange: e }: { exchange: Exchange }) {
  if (!e.error && !e.explanation) return null;
  return (
    <div className="exchange-problem" data-testid="exchange-problem">
      {e.error ? (
        <pre className="exchange-error" data-testid="exchange-error">
          {e.error}
        </pre>
      ) : null}
      {e.explanation ? (
        <p className="exchange-explanation" data-testid="exchange-explanation">
          <strong>Probably:</strong> {e.explanation}
        </p>
      ) : null}
    </div>
  );
}

/** Request and response, headers and bodies, and the same request as curl. */
export function ExchangeDetails({ exchange: e }: { exchange: Exchange }) {
  const request = httpRequestText(e.request);
  const response = e.response ? httpResponseText(e.response) : null;
  return (
    <div className="exchange-details" data-testid="exchange-details">
      <ExchangeProblem exchange={e} />
      <div className="exchange-block">
        <div className="exchange-block-head">
          <span>Request</span>
          <span className="panel-spacer" />
          <CopyButton text={() => e.curl} label="Copy as curl" testId="copy-exchange-curl" />
          <CopyButton text={() => request} testId="copy-exchange-request" />
        </div>
        <pre className="exchange-text" data-testid="exchange-request">
          {request}
        </pre>
      </div>
      <div className="exchange-block">
        <div className="exchange-block-head">
          <span>Response</span>
          <span className="panel-spacer" />
          {response ? <CopyButton text={() => response} testId="copy-exchange-response" /> : null}
        </div>
        {response ? (
          <pre className="exchange-text" data-testid="exchange-response">
            {response}
          </pre>
        ) : (
          <p className="muted">No response: the request did not get an answer.</p>
        )}
      </div>
    </div>
  );
}
