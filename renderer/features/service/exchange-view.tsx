import { GUID_SOURCE } from '../../../electron/contract/schemas/ids';
import type { Exchange } from '../../../electron/contract/schemas/service';
import { CopyButton } from '../../shared/copy-button';
import { DisclosureButton } from '../../shared/disclosure-button';
import { formatClock, formatMs } from '../../shared/format';
import { httpRequestText, httpResponseText } from '../../shared/http-text';
import { StatusMark } from '../../shared/status-mark';
import { useServiceStore } from './service-store';
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

/** The exchange history, newest first; each entry opens to its request and response. */
export function ExchangeList({ exchanges }: { exchanges: Exchange[] }) {
  if (exchanges.length === 0) {
    return (
      <div className="empty" data-testid="exchanges-empty">
        <h2>No exchange yet</h2>
        <p>
          Every request the console sends to the active environment (authenticate, JWKS, registered JWKs,
          rotation) shows up here as it happens, with its headers, bodies and a curl to replay it.
        </p>
      </div>
    );
  }
  return (
    <ol className="exchanges" data-testid="exchanges">
      {exchanges.map((e) => (
        <ExchangeItem key={e.id} exchange={e} />
      ))}
    </ol>
  );
}

function ExchangeItem({ exchange: e }: { exchange: Exchange }) {
  const expanded = useServiceStore((s) => s.expanded[e.id] === true);
  const toggle = useServiceStore((s) => s.toggleExchange);
  const bodyId = `exchange-body-${e.id}`;
  return (
    <li
      id={`exchange-${e.id}`}
      className={`exchange-item ${e.ok ? 'is-ok' : 'is-failed'}`}
      data-testid={`exchange-${e.id}`}
      data-exchange-id={e.id}
      data-ok={String(e.ok)}
      data-operation={e.operation}
    >
      <DisclosureButton
        className="exchange-head"
        expanded={expanded}
        controls={bodyId}
        onToggle={() => toggle(e.id)}
        testId="exchange-toggle"
      >
        <ExchangeLine exchange={e} />
        <time className="exchange-time" dateTime={e.at} title={e.at}>
          {formatClock(e.at)}
        </time>
      </DisclosureButton>
      {!expanded && (e.error || e.explanation) ? (
        <p className="exchange-summary-problem" title={e.explanation ?? e.error ?? undefined}>
          {e.explanation ?? e.error}
        </p>
      ) : null}
      {expanded ? (
        <div id={bodyId} className="exchange-body-wrap">
          <ExchangeDetails exchange={e} />
        </div>
      ) : null}
    </li>
  );
}

/** Opens an exchange in the history and brings it into view (from a rotation step, a result). */
export function revealExchange(id: string): void {
  useServiceStore.getState().expandExchange(id);
  setTimeout(() => {
    const el = document.getElementById(`exchange-${id}`);
    el?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
    el?.querySelector<HTMLElement>('[data-testid="exchange-toggle"]')?.focus();
  }, 0);
}
