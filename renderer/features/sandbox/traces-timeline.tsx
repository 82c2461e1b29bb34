import { CALLBACK_BUDGET_MS } from '../../../electron/contract/schemas/inspector';
import type { Trace, TraceStep } from '../../../electron/contract/schemas/sandbox';
import { CopyButton } from '../../shared/copy-button';
import { DisclosureButton } from '../../shared/disclosure-button';
import { httpRequestText, httpResponseText } from '../../shared/http-text';
import { StatusMark } from '../../shared/status-mark';
import { formatClock, formatMs, shortGuid } from './format';
import { useSandboxStore } from './sandbox-store';

/** The bar's full width: 1.5 s, so the 1 s marker sits at two thirds and an overrun shows. */
const BAR_MS = 1500;

/** The sandbox's sign-ins and notifications, newest first, live. */
export function TracesTimeline({ traces }: { traces: Trace[] }) {
  if (traces.length === 0) {
    return (
      <div className="empty" data-testid="traces-empty">
        <h2>No traces yet</h2>
        <p>
          Run a sign-in or send a notification: each step the sandbox takes (checking the bank’s JWT, calling
          the bank, judging its answer) shows up here as it happens, with its request and response.
        </p>
      </div>
    );
  }
  return (
    <ol className="traces" data-testid="traces">
      {traces.map((t) => (
        <TraceItem key={t.id} trace={t} />
      ))}
    </ol>
  );
}

/** One line per trace: what failed in its own words ("failed at phone: phone missing"), never a step's title. */
function summary(t: Trace): string {
  if (t.ok) return `all ${t.steps.length} step${t.steps.length === 1 ? '' : 's'} passed`;
  const failed = t.steps.find((s) => s.id === t.failed) ?? t.steps.find((s) => s.status === 'failed');
  return `failed at ${t.failed ?? failed?.id ?? 'a step'}${failed?.detail ? `: ${failed.detail}` : ''}`;
}

function TraceItem({ trace: t }: { trace: Trace }) {
  const expanded = useSandboxStore((s) => s.expandedTraces[t.id] === true);
  const toggle = useSandboxStore((s) => s.toggleTrace);
  const bodyId = `trace-steps-${t.id}`;
  return (
    <li
      className={`trace ${t.ok ? 'trace-ok' : 'trace-failed'}`}
      data-testid={`trace-${t.id}`}
      data-trace-id={t.id}
      data-kind={t.kind}
      data-ok={String(t.ok)}
      data-counterparty={t.counterparty_guid}
    >
      <DisclosureButton
        className="trace-head"
        expanded={expanded}
        controls={bodyId}
        onToggle={() => toggle(t.id)}
        testId="trace-toggle"
      >
        <StatusMark
          status={t.ok ? 'passed' : 'failed'}
          word={t.ok ? 'ok' : 'failed'}
          className="trace-status"
        />
        <span className="trace-kind">{t.kind}</span>
        <span className="trace-summary">{summary(t)}</span>
        <span className="trace-meta">
          <code title={t.counterparty_guid}>{shortGuid(t.counterparty_guid)}</code>
          <span className="trace-total" title="total time">
            {formatMs(t.duration_ms)}
          </span>
          <time dateTime={t.at} title={t.at}>
            {formatClock(t.at)}
          </time>
        </span>
      </DisclosureButton>
      {expanded ? (
        <ol className="steps" id={bodyId} data-testid="trace-steps">
          {t.steps.map((s, i) => (
            <StepRow key={`${s.id}-${i}`} step={s} />
          ))}
        </ol>
      ) : null}
    </li>
  );
}

function StepRow({ step: s }: { step: TraceStep }) {
  return (
    <li className={`step step-${s.status}`} data-testid={`step-${s.id}`} data-status={s.status}>
      <StatusMark status={s.status} />
      <div className="step-body">
        <div className="step-title">
          {s.title} <code className="step-id">{s.id}</code>
        </div>
        {s.detail ? <div className="step-detail">{s.detail}</div> : null}
      </div>
      <BudgetBar ms={s.duration_ms} />
      {s.request || s.response ? (
        <div className="step-exchanges">
          {s.request ? (
            <Exchange
              label={`${s.request.method} ${s.request.url}`}
              text={httpRequestText(s.request)}
              testId="step-request"
            />
          ) : null}
          {s.response ? (
            <Exchange
              label={`${s.response.status} response`}
              text={httpResponseText(s.response)}
              testId="step-response"
            />
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

/** A step's duration against the 1 s budget: a bar with the 1 s mark, and the time in words. */
export function BudgetBar({ ms }: { ms: number | null }) {
  if (ms === null) return <span className="budget-none" aria-hidden="true" />;
  const over = ms > CALLBACK_BUDGET_MS;
  const label = `${formatMs(ms)} of the 1 s budget${over ? ', over it' : ''}`;
  return (
    <span className={`budget ${over ? 'budget-over' : ''}`} title={label} data-testid="step-duration">
      <span className="budget-track" role="img" aria-label={label}>
        <span className="budget-fill" style={{ width: `${Math.min(ms / BAR_MS, 1) * 100}%` }} />
        <span className="budget-mark" style={{ left: `${(CALLBACK_BUDGET_MS / BAR_MS) * 100}%` }} />
      </span>
      <span className="budget-ms">{formatMs(ms)}</span>
    </span>
  );
}

/** A request or response as text, folded by default (the summary is a button: Enter/Space opens it). */
function Exchange({ label, text, testId }: { label: string; text: string; testId: string }) {
  return (
    <details className="exchange" data-testid={testId}>
      <summary>
        <span className="exchange-label">{label}</span>
      </summary>
      <div className="exchange-body">
        <CopyButton text={() => text} testId={`copy-${testId}`} />
        <pre className="exchange-text">{text}</pre>
      </div>
    </details>
  );
}
