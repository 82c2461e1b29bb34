import { useState, type ReactNode } from 'react';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type {
  WalkthroughReach,
  WalkthroughState,
  WalkthroughStep,
} from '../../../electron/contract/schemas/walkthrough';
import { CopyButton } from '../../shared/copy-button';
import { saveTextFile } from '../../shared/download';
import { JsonView } from '../../shared/json-view';
import { ChecksList, VerdictBanner } from '../../shared/report-views';
import { TokenView } from '../../shared/token-view';
import { ForwardPanel } from '../../shared/forward-panel';
import { ProbeResultLine, PUBLIC_URL_SOURCE, RegisterTable } from '../../shared/public-url';
import { curlCommand } from '../../shared/event-http';
import { SpecCitation } from '../../shared/spec-citation';
import { Allowed } from '../../shared/allowed';
import { OnboardingBlock, RehearsalPanel, ServiceRequestBox } from './journey';

const STATE_WORDS: Record<WalkthroughStep['state'], { icon: string; word: string }> = {
  done: { icon: '✓', word: 'done' },
  failed: { icon: '✗', word: 'failed' },
  pending: { icon: '○', word: 'to do' },
  waiting: { icon: '…', word: 'waiting for the service' },
};

/** What the page says a step's button is: the next step's (primary), or one that needs another first. */
export interface StepTurn {
  /** The first step not done yet: its button is the only primary one. */
  next: boolean;
  /** Why the button is disabled: the earlier step it needs, in words; null when it can run. */
  blockedBy: string | null;
}

/** A run's message and the step's summary when it arrived (to tell when the state moved on). */
export interface StepMessage {
  ok: boolean;
  text: string;
  summary: string;
}

export interface StepRun {
  /** Typed input the action needs (a real environment's counterparty_guid or bank URL). */
  value?: string;
  /** Step 7 on the sandbox: rehearse the service's retry instead (issue 27 item 5). */
  rehearse?: boolean;
}

/** What a step card shows and does. */
interface StepCardProps {
  step: WalkthroughStep;
  state: WalkthroughState;
  activeKey: KeyInfo | null;
  /** Another action is running: one at a time. */
  busy: boolean;
  running: boolean;
  message: StepMessage | null;
  turn: StepTurn;
  onRun(run: StepRun): void;
}

/**
 * One step: what the service expects and why (with the spec section), its state as derived from
 * the events, the reason and the fix when it failed, what it waits for, the facts that prove
 * it, and its one action.
 */
export function StepCard(props: StepCardProps) {
  const { step, state, activeKey } = props;
  const mark = STATE_WORDS[step.state];
  return (
    <li
      tabIndex={-1}
      className={`wt-step wt-${step.state}`}
      data-testid={`step-${step.id}`}
      data-state={step.state}
      aria-labelledby={`step-title-${step.id}`}
    >
      <div className="wt-step-head">
        <span className="wt-number" aria-hidden="true">
          {step.number}
        </span>
        <h2 className="wt-title" id={`step-title-${step.id}`}>
          {step.title}
        </h2>
        <SpecCitation spec={step.spec} className="wt-spec" />
        <span className="panel-spacer" />
        <span className={`wt-state wt-state-${step.state}`} data-testid={`step-state-${step.id}`}>
          <span aria-hidden="true">{mark.icon}</span> {mark.word}
        </span>
      </div>
      <p className="wt-explanation">{step.explanation}</p>
      <p className="wt-summary" data-testid={`step-summary-${step.id}`}>
        {step.summary}
        {step.at ? <span className="muted"> · {new Date(step.at).toLocaleString()}</span> : null}
      </p>
      <StepProblem step={step} state={state} />
      {step.facts.length > 0 ? (
        <dl className="kv wt-facts" data-testid={`step-facts-${step.id}`}>
          {step.facts.map((f) => (
            <FactRow key={f.label} label={f.label} value={f.value} />
          ))}
        </dl>
      ) : null}
      <StepJourney {...props} />
      <StepDetail step={step} state={state} activeKey={activeKey} />
      {step.action ? <StepAction {...props} /> : null}
    </li>
  );
}

/**
 * What a step adds to the journey (issue 26 item 3, issue 27 item 5): a real environment's
 * onboarding block on step 2, who starts steps 6 and 7 and the message asking for them, and step
 * 7's retry rehearsal on the sandbox.
 */
function StepJourney({ step, state, busy, running, onRun, turn }: StepCardProps) {
  if (step.id === 'register' && state.onboarding) {
    return <OnboardingBlock envId={state.environment.id} block={state.onboarding} />;
  }
  const request = step.service_request;
  if (request) return <ServiceRequestBox step={step.id} request={request} />;
  if (step.id === 'notifications' && state.environment.kind === 'sandbox') {
    return (
      <RehearsalPanel
        rehearsal={state.rehearsal ?? null}
        disabled={busy || turn.blockedBy !== null}
        running={running}
        onRehearse={() => onRun({ rehearse: true })}
      />
    );
  }
  return null;
}

function FactRow({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="mono">{value}</dd>
    </>
  );
}

function numberOf(state: WalkthroughState, id: WalkthroughStep['id']): number {
  return state.steps.find((s) => s.id === id)?.number ?? 0;
}

/** What a step shows beyond its facts: the JWK to send, the token, the session_token's checks, the URL. */
function StepDetail({
  step,
  state,
  activeKey,
}: {
  step: WalkthroughStep;
  state: WalkthroughState;
  activeKey: KeyInfo | null;
}): ReactNode {
  const real = state.environment.kind === 'real';
  if (step.id === 'register' && real && activeKey) {
    const text = `${JSON.stringify(activeKey.public_jwk, null, 2)}\n`;
    return (
      <div className="wt-detail" data-testid="step-jwk">
        <p className="muted">
          The public JWK for the service’s onboarding form (spec 2.1: public members only):
        </p>
        <JsonView value={activeKey.public_jwk} />
        <div className="form-actions">
          <CopyButton text={() => text} label="Copy JWK" testId="copy-jwk" />
          <button
            type="button"
            className="btn btn-small"
            onClick={() => saveTextFile(text, `${activeKey.kid}.jwk.json`, 'application/json')}
            data-testid="download-jwk"
          >
            Save as file
          </button>
        </div>
      </div>
    );
  }
  if (step.id === 'compose' && state.composed) {
    const token = state.composed.token;
    const request = state.authenticate_request ?? null;
    const curl = request ? curlCommand(request, null) : null;
    return (
      <div className="wt-detail" data-testid="step-token">
        <div className="form-actions">
          <CopyButton text={() => token} label="Copy token" testId="copy-token" />
          <CopyButton text={() => `CX-Authorization: ${token}`} label="Copy header" testId="copy-cx" />
          {curl ? <CopyButton text={() => curl} label="Copy as curl" testId="copy-curl" /> : null}
        </div>
        <details>
          <summary>The bank JWT (CX-Authorization)</summary>
          <TokenView token={token} testId="walkthrough-token" />
          <JsonView value={{ header: state.composed.header, payload: state.composed.payload }} />
        </details>
      </div>
    );
  }
  if (step.id === 'authenticate' && state.session?.report && step.state === 'done') {
    return (
      <details className="wt-detail" data-testid="step-session" open>
        <summary>The session_token’s checks</summary>
        <VerdictBanner report={state.session.report} />
        <ChecksList checks={state.session.report.checks} title="session_token checks" />
      </details>
    );
  }
  if (step.id === 'callbacks' && real && state.reach) {
    return <ReachDetail reach={state.reach} />;
  }
  return null;
}

/**
 * Step 5 on a real environment (issue 14 item 5): what to register with the service (the public
 * URL in force, else the listener's own with why it will not do), the last test from outside of
 * it (the step's action runs it), and forward mode, so the service's callbacks can reach the
 * engineer's backend through the console. The URL, the probe and forward mode are the Bank
 * page's own (tunnel.status, tunnel.probe, bank.setForward): this shows them where they are needed.
 */
function ReachDetail({ reach }: { reach: WalkthroughReach }) {
  return (
    <div className="wt-detail wt-reach" data-testid="step-reach">
      {reach.warning ? (
        <p className="banner banner-warn" role="alert" data-testid="wt-reach-warning">
          {reach.warning}
        </p>
      ) : null}
      {reach.bank_auth_url ? (
        <>
          {reach.public_url_source ? (
            <p className="muted" data-testid="wt-public-url-source">
              Public URL from {PUBLIC_URL_SOURCE[reach.public_url_source]} (change it on the Bank page).
            </p>
          ) : null}
          <RegisterTable
            register={{ bank_auth_url: reach.bank_auth_url, notification_urls: reach.notification_urls }}
            testId="wt-register"
          />
        </>
      ) : null}
      {reach.probe ? (
        <ProbeResultLine probe={reach.probe} testId="wt-probe" />
      ) : (
        <p className="field-note muted" data-testid="wt-probe-none">
          Not tested from outside yet: “Test from outside” sends a one-time marker to the URL above and checks
          that it came back to this console, before the service tries.
        </p>
      )}
      <details open={reach.forward_url !== null} data-testid="wt-forward">
        <summary>Forward the service’s callbacks to your own backend</summary>
        <ForwardPanel key={reach.forward_url ?? 'off'} url={reach.forward_url} />
      </details>
    </div>
  );
}

/** Why a failed step failed and its fix (or the hint), what it waits for, what it builds on. */
function StepProblem({ step, state }: { step: WalkthroughStep; state: WalkthroughState }) {
  return (
    <>
      {step.state === 'failed' ? (
        <div className="wt-problem" role="alert" data-testid={`step-problem-${step.id}`}>
          {step.reason ? (
            <p data-testid={`step-reason-${step.id}`}>
              <strong>Why: </strong>
              {step.reason}
            </p>
          ) : null}
          {step.fix ? (
            <p data-testid={`step-fix-${step.id}`}>
              <strong>Fix: </strong>
              {step.fix}
            </p>
          ) : null}
        </div>
      ) : step.fix ? (
        <p className="wt-hint" data-testid={`step-fix-${step.id}`}>
          {step.fix}
        </p>
      ) : null}
      {step.waiting_for ? (
        <p className="wt-waiting" data-testid={`step-waiting-${step.id}`}>
          <strong>Waiting for: </strong>
          {step.waiting_for}
        </p>
      ) : null}
      {step.needs && step.state !== 'done' ? (
        <p className="wt-needs muted">Builds on step {numberOf(state, step.needs)}, which is not done yet.</p>
      ) : null}
    </>
  );
}

/** The step's one action: its typed input if it needs one, why it is blocked, the last run. */
function StepAction(props: Omit<StepCardProps, 'activeKey'>) {
  const { step, state, busy, running, message, turn, onRun } = props;
  const [value, setValue] = useState('');
  const inputId = `step-input-${step.id}`;
  const needsValue = step.action_input === 'counterparty_guid' && value.trim() === '';
  const reasonId = `step-blocked-${step.id}`;
  // "Last run" reflects the current state: when the step moved on since (a rotation made another
  // key active), the line says what it is now.
  const moved = message !== null && message.summary !== step.summary;
  return (
    <div className="wt-action">
      {step.action_input ? (
        <label className="wt-input">
          <span className="field-label">
            {step.action_input === 'counterparty_guid'
              ? 'counterparty_guid'
              : 'Your own public URL (optional: a tunnel or --public-url wins)'}
          </span>
          <input
            id={inputId}
            className="input mono"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            placeholder={
              step.action_input === 'counterparty_guid'
                ? '00000000-0000-0000-0000-000000000000'
                : (state.bank_url ?? 'https://bank-tunnel.example')
            }
            spellCheck={false}
            autoComplete="off"
            data-testid={inputId}
          />
        </label>
      ) : null}
      <Allowed method="walkthrough.run">
        <button
          type="button"
          className={`btn btn-small ${turn.next ? 'btn-primary' : ''}`}
          disabled={busy || needsValue || turn.blockedBy !== null}
          aria-describedby={turn.blockedBy ? reasonId : undefined}
          onClick={() => onRun(value.trim() ? { value: value.trim() } : {})}
          data-testid={`step-action-${step.id}`}
          data-next={String(turn.next)}
        >
          {running ? 'Running…' : step.action}
        </button>
      </Allowed>
      {turn.blockedBy ? (
        <span className="wt-blocked muted" id={reasonId} data-testid={`step-blocked-${step.id}`}>
          {turn.blockedBy}
        </span>
      ) : null}
      {message ? (
        <span
          className={`wt-message ${message.ok ? 'text-pass' : 'text-fail'}`}
          role="status"
          data-testid={`step-message-${step.id}`}
          data-ok={String(message.ok)}
          data-moved={String(moved)}
        >
          <span className="muted">Last run: </span>
          {message.text}
          {moved ? (
            <>
              <span className="muted"> · now: </span>
              {step.summary}
            </>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}
