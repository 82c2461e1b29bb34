import { type FormEvent } from 'react';
import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { ErrorPanel } from '../../shared/error-panel';
import { JsonView } from '../../shared/json-view';
import { analyzeTokenText } from '../../shared/token-text';
import { formatMs } from './format';
import { useSandboxStore } from './sandbox-store';
import { useSignIn } from './use-sandbox';

/**
 * The registration flow (spec 4.4) with a bank JWT the engineer pastes: the sandbox validates it
 * as the service would, calls the bank's GET /user_auth with its own JWT in X-Session-ID, and
 * judges the answer. The result's trace opens in the timeline.
 */
export function SignInForm({ counterparty }: { counterparty: Counterparty }) {
  const guid = counterparty.counterparty_guid;
  const raw = useSandboxStore((s) => s.signInTokens[guid] ?? '');
  const setToken = useSandboxStore((s) => s.setSignInToken);
  const signIn = useSignIn();
  const { token, stripped } = analyzeTokenText(raw);
  const kids = counterparty.jwks.map((j) => j.jwk.kid).filter((k): k is string => typeof k === 'string');
  const id = `sign-in-token-${guid}`;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (token !== '') signIn.mutate({ counterparty_guid: guid, token });
  };

  const result = signIn.data;
  return (
    <form className="action-form" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`} className="subhead">
        Run sign-in
      </h4>
      <div className="field">
        <label htmlFor={id} className="field-label">
          Bank JWT <span className="field-hint">sent as CX-Authorization</span>
        </label>
        <textarea
          id={id}
          className="input mono sign-in-token"
          rows={3}
          value={raw}
          onChange={(e) => {
            if (!signIn.isIdle) signIn.reset();
            setToken(guid, e.target.value);
          }}
          spellCheck={false}
          autoComplete="off"
          placeholder="eyJhbGciOiJSUzI1NiIsImtpZCI6…"
          aria-describedby={`${id}-help`}
          data-testid="sign-in-token"
        />
        <p className="field-note muted" id={`${id}-help`}>
          Paste a JWT your bank signed with the private key of a JWK registered above
          {kids.length > 0 ? (
            <>
              {' '}
              (header <code>alg</code> RS256, <code>kid</code> <code>{kids.join(' or ')}</code>)
            </>
          ) : null}
          , with claims <code>flow</code> = sign-in, <code>obj</code> (the customer: IBAN or phone),{' '}
          <code>sub</code> (who acts), <code>iat</code> and <code>exp</code> (at most 1 h apart).
          {stripped.length > 0 ? <> Stripped: {stripped.join(', ').replaceAll('`', '')}.</> : null}
          {!counterparty.bank_auth_url ? (
            <span className="text-warn">
              {' '}
              Set the bank auth URL first: the flow calls its GET /user_auth.
            </span>
          ) : null}
        </p>
      </div>
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-small btn-primary"
          disabled={token === '' || signIn.isPending}
          data-testid="run-sign-in"
        >
          {signIn.isPending ? 'Running…' : 'Run sign-in'}
        </button>
        {result ? (
          <span
            className={`result-line ${result.ok ? 'text-pass' : 'text-fail'}`}
            role="status"
            data-testid="sign-in-result"
            data-ok={String(result.ok)}
          >
            {result.ok
              ? `✓ signed in: every step passed in ${formatMs(result.trace.duration_ms)}`
              : `✗ failed at ${result.failed ?? result.trace.failed ?? 'a step'}: see the trace`}
          </span>
        ) : null}
      </div>
      {signIn.error ? (
        <ErrorPanel title="Sign-in refused" error={signIn.error} testId="sign-in-error" />
      ) : null}
      {result?.ok && result.user ? (
        <details className="exchange" data-testid="sign-in-user">
          <summary>User data the bank answered</summary>
          <JsonView value={result.user} />
        </details>
      ) : null}
    </form>
  );
}
