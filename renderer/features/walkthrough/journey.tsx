import { useState } from 'react';
import type {
  RetryRehearsal,
  WalkthroughOnboarding,
  WalkthroughStep,
} from '../../../electron/contract/schemas/walkthrough';
import { CopyButton } from '../../shared/copy-button';
import { PUBLIC_URL_SOURCE } from '../../shared/public-url';
import { useSaveEnvironment } from '../../data/environments';
import { Allowed } from '../../shared/allowed';

/**
 * A real environment's onboarding in the order it happens (issue 26 item 3): the public URL
 * first (a tunnel, --public-url, or the engineer's own front typed here), then one block of what
 * to send the service team, copied whole or value by value; the counterparty_guid they answer
 * goes in the step's input below.
 */
export function OnboardingBlock({ envId, block }: { envId: string; block: WalkthroughOnboarding }) {
  return (
    <div className="wt-detail wt-onboarding" data-testid="wt-onboarding">
      <h3 className="wt-sub">1. Your public URL</h3>
      {block.public_url ? (
        <p data-testid="wt-onboarding-public-url">
          <code>{block.public_url}</code>
          {block.public_url_source ? (
            <span className="muted"> · from {PUBLIC_URL_SOURCE[block.public_url_source]}</span>
          ) : null}
        </p>
      ) : (
        <OwnFrontForm envId={envId} />
      )}
      <h3 className="wt-sub">2. What to send the service team</h3>
      {block.missing ? (
        <p className="banner banner-warn" data-testid="wt-onboarding-missing">
          {block.missing}
        </p>
      ) : null}
      <dl className="kv wt-onboarding-values" data-testid="wt-onboarding-values">
        {block.values.map((v) => (
          <div key={v.id} className="wt-onboarding-row" data-testid={`wt-onboarding-${v.id}`}>
            <dt>{v.label}</dt>
            <dd className="mono wt-onboarding-value" title={v.value}>
              {v.value}
            </dd>
            <dd>
              <CopyButton text={() => v.value} testId={`wt-onboarding-copy-${v.id}`} />
            </dd>
          </div>
        ))}
      </dl>
      <div className="form-actions">
        <CopyButton text={() => block.text} label="Copy the whole block" testId="wt-onboarding-copy-all" />
      </div>
      <h3 className="wt-sub">3. The counterparty_guid they answer</h3>
      <p className="muted">
        {block.counterparty_guid
          ? `Saved: ${block.counterparty_guid}.`
          : 'Enter it below once the service team has registered the JWK.'}
      </p>
    </div>
  );
}

/** The engineer's own front (a reverse proxy, a load balancer): saved as the environment's public URL. */
function OwnFrontForm({ envId }: { envId: string }) {
  const save = useSaveEnvironment();
  const [url, setUrl] = useState('');
  return (
    <form
      className="wt-own-front"
      onSubmit={(e) => {
        e.preventDefault();
        if (url.trim()) save.mutate({ id: envId, public_url: url.trim() });
      }}
    >
      <p className="muted">
        None yet. Start a tunnel on the Bank page (or <code>serve --tunnel</code>), start with{' '}
        <code>--public-url</code>, or enter the URL of your own front:
      </p>
      {/* Saving it edits the environment: an admin's on a hub (team-roles.ts env.save). */}
      <Allowed method="env.save">
        <label className="wt-input">
          <span className="field-label">Your own front’s URL</span>
          <input
            className="input mono"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://bank-staging.example"
            spellCheck={false}
            autoComplete="off"
            data-testid="wt-own-front-url"
          />
        </label>
        <button type="submit" className="btn btn-small" disabled={!url.trim() || save.isPending}>
          Use this URL
        </button>
        {save.error ? (
          <span className="text-fail" role="alert" data-testid="wt-own-front-error">
            {save.error.message}
          </span>
        ) : null}
      </Allowed>
    </form>
  );
}

/** Steps 6 and 7 of a real environment: who starts them, and the message asking for it. */
export function ServiceRequestBox({
  step,
  request,
}: {
  step: WalkthroughStep['id'];
  request: NonNullable<WalkthroughStep['service_request']>;
}) {
  return (
    <div className="wt-detail wt-service-request" data-testid={`wt-request-${step}`}>
      <p>
        <strong>Who starts it: </strong>
        <span data-testid={`wt-request-who-${step}`}>{request.who}</span>
      </p>
      <p className="muted">The message to send them:</p>
      <pre className="mono wt-request-message" data-testid={`wt-request-message-${step}`}>
        {request.message}
      </pre>
      <CopyButton text={() => request.message} label="Copy the message" testId={`wt-request-copy-${step}`} />
    </div>
  );
}

/**
 * Step 7 on the sandbox: "send it the way the service retries" (issue 27 item 5), and the last
 * rehearsal's result.
 */
export function RehearsalPanel({
  rehearsal,
  disabled,
  running,
  onRehearse,
}: {
  rehearsal: RetryRehearsal | null;
  disabled: boolean;
  running: boolean;
  onRehearse(): void;
}) {
  return (
    <div className="wt-detail wt-rehearsal" data-testid="wt-rehearsal">
      <p className="muted">
        Optional: send a pay-in the way the service retries. Its answer is lost (the connection closes as the
        status line arrives), so the sandbox’s delivery ladder sends the same transaction_id again; the bank
        must answer that repeat 200 and store it once.
      </p>
      <button
        type="button"
        className="btn btn-small"
        disabled={disabled}
        onClick={onRehearse}
        data-testid="wt-rehearse"
      >
        {running ? 'Rehearsing…' : 'Send it the way the service retries'}
      </button>
      {rehearsal ? (
        <p
          className={rehearsal.ok ? 'text-pass' : 'text-fail'}
          data-testid="wt-rehearsal-result"
          data-ok={String(rehearsal.ok)}
        >
          {rehearsal.ok ? '✓ ' : '✗ '}
          {rehearsal.detail}
          <span className="muted">
            {' '}
            · delivery {rehearsal.delivery_state}, repeat answered {rehearsal.repeat_status ?? 'nothing'}
          </span>
        </p>
      ) : null}
    </div>
  );
}
