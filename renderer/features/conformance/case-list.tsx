import type { CaseExchange, CaseResult } from '../../../electron/contract/schemas/conformance';
import { CopyButton } from '../../shared/copy-button';
import { DisclosureButton } from '../../shared/disclosure-button';
import { formatMs } from '../../shared/format';
import { httpRequestText, httpResponseText } from '../../shared/http-text';
import { StatusMark } from '../../shared/status-mark';
import { notifyCaseText } from '../../../electron/contract/notify-cases';
import { useConformanceStore } from './conformance-store';

/** Text whose `backticked` parts are code (the contract's case descriptions). */
function CodeText({ text }: { text: string }) {
  return <>{text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}

/** Listed expected failures: case id and why (a notification run given some). */
type Expected = ReadonlyArray<{ id: string; reason: string }>;

/** The cases as they finish, in run order; each opens (a button: Enter/Space) to its exchanges. */
export function CaseList({ cases, expected = [] }: { cases: CaseResult[]; expected?: Expected }) {
  const failedOnly = useConformanceStore((s) => s.failedOnly);
  const shown = failedOnly ? cases.filter((c) => c.status !== 'passed') : cases;
  if (shown.length === 0 && cases.length > 0) {
    return (
      <p className="muted" data-testid="conformance-none-failed">
        No case failed.
      </p>
    );
  }
  return (
    <ol className="cf-cases" data-testid="conformance-cases" aria-live="polite">
      {shown.map((c) => (
        <CaseRow key={c.id} c={c} expectedWhy={expected.find((e) => e.id === c.id)?.reason ?? null} />
      ))}
    </ol>
  );
}

function CaseRow({ c, expectedWhy }: { c: CaseResult; expectedWhy: string | null }) {
  const expanded = useConformanceStore((s) => s.expanded[c.id] === true);
  // A notify.* case names the receiver fault it catches (the contract's words, as the docs').
  const fault = notifyCaseText(c.id)?.fault ?? null;
  const toggle = useConformanceStore((s) => s.toggle);
  const bodyId = `cf-case-${c.id.replace(/[^\w-]/g, '-')}`;
  return (
    <li
      className={`cf-case cf-case-${c.status}`}
      data-testid="conformance-case"
      data-case-id={c.id}
      data-status={c.status}
      data-expected={expectedWhy !== null ? 'true' : undefined}
    >
      <DisclosureButton
        className="cf-case-head"
        expanded={expanded}
        controls={bodyId}
        onToggle={() => toggle(c.id)}
        testId="conformance-case-toggle"
      >
        <StatusMark status={c.status} className="cf-case-status" />
        <code className="cf-case-id">{c.id}</code>
        <span className="cf-case-title">{c.title}</span>
        <span className="cf-case-time">{formatMs(c.duration_ms)}</span>
      </DisclosureButton>
      {c.status !== 'passed' || expanded ? (
        <p className="cf-case-detail" data-testid="conformance-case-detail">
          {c.failed_check ? (
            <>
              <code data-testid="conformance-case-check">failed at {c.failed_check}</code>{' '}
            </>
          ) : null}
          {expectedWhy !== null ? (
            <>
              <span className="cf-case-expected" data-testid="conformance-case-expected">
                expected failure ({expectedWhy})
              </span>{' '}
            </>
          ) : null}
          {c.detail}
        </p>
      ) : null}
      {fault !== null && (c.status === 'failed' || expanded) ? (
        <p className="cf-case-detail cf-case-fault" data-testid="conformance-case-fault">
          <strong>Catches:</strong> <CodeText text={fault} />
        </p>
      ) : null}
      {expanded ? (
        <div className="cf-case-body" id={bodyId} data-testid="conformance-case-body">
          {c.metrics ? (
            <p className="cf-metrics" data-testid="conformance-case-metrics">
              {c.metrics.count} calls: p50 {formatMs(c.metrics.p50_ms)}, p95 {formatMs(c.metrics.p95_ms)}, max{' '}
              {formatMs(c.metrics.max_ms)} (budget {formatMs(c.metrics.budget_ms)})
            </p>
          ) : null}
          {c.exchanges.length === 0 ? <p className="muted">No request was sent.</p> : null}
          {c.exchanges.map((x, i) => (
            <ExchangeView key={i} x={x} testId={`conformance-exchange-${i}`} />
          ))}
          <div className="form-actions">
            <CopyButton
              text={() => JSON.stringify(c, null, 2)}
              label="Copy case as JSON"
              testId="conformance-case-copy"
            />
          </div>
        </div>
      ) : null}
    </li>
  );
}

function ExchangeView({ x, testId }: { x: CaseExchange; testId: string }) {
  const request = httpRequestText({ ...x.request, body: null });
  const response = x.response
    ? httpResponseText({ status: x.response.status, headers: x.response.headers, body: x.response.body })
    : `no answer: ${x.error ?? 'unknown'}`;
  return (
    <details className="cf-exchange" data-testid={testId}>
      <summary>
        <span className="cf-exchange-label">
          {x.label}: {x.request.method} {new URL(x.request.url).pathname} →{' '}
          {x.response ? x.response.status : 'no answer'} in {formatMs(x.duration_ms)}
        </span>
      </summary>
      <div className="cf-exchange-grid">
        <div className="cf-exchange-part">
          <div className="cf-exchange-head">
            Request <CopyButton text={() => request} testId={`${testId}-copy-request`} />
          </div>
          <pre className="cf-exchange-text">{request}</pre>
          {x.token ? (
            <>
              <div className="cf-exchange-head">X-Session-ID decoded</div>
              <pre className="cf-exchange-text">{JSON.stringify(x.token, null, 2)}</pre>
            </>
          ) : null}
        </div>
        <div className="cf-exchange-part">
          <div className="cf-exchange-head">
            Response <CopyButton text={() => response} testId={`${testId}-copy-response`} />
          </div>
          <pre className="cf-exchange-text">{response}</pre>
        </div>
      </div>
    </details>
  );
}
