import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { JsonView } from '../../shared/json-view';
import { Segmented } from '../../shared/segmented';
import { formatMs } from '../../shared/format';
import { type SignInDraft } from './sandbox-store';
import { ComposeFields, PasteField } from './sign-in-fields';
import { useSignInForm, type SignInFormState } from './use-sign-in-form';

const MODES: Array<{ value: NonNullable<SignInDraft['mode']>; label: string }> = [
  { value: 'compose', label: 'Compose with a vault key' },
  { value: 'paste', label: 'Paste a JWT' },
];

/**
 * The registration flow (spec 4.4): the sandbox validates the bank JWT as the service would,
 * calls the bank's GET /user_auth with its own JWT in X-Session-ID, and judges the answer. The
 * bank JWT is composed here (a vault key registered for this counterparty, a customer's obj and
 * sub, signed by jwt.sign: the key never leaves the core) or pasted. The result's trace opens in
 * the timeline.
 */
export function SignInForm({ counterparty }: { counterparty: Counterparty }) {
  const f = useSignInForm(counterparty);
  const { id, mode, sign, signIn } = f;
  const result = signIn.data;
  return (
    <form className="action-form" onSubmit={f.submit} noValidate aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`} className="subhead">
        Run sign-in
      </h4>
      <Segmented
        label="Bank JWT"
        name={`${id}-mode`}
        options={MODES}
        value={mode}
        onChange={(m) => f.edit({ mode: m })}
        testIdPrefix="sign-in-mode-"
      />
      {mode === 'compose' ? <ComposeFields f={f} /> : <PasteField f={f} />}
      <SignInActions f={f} />
      {sign.error ? <ErrorPanel title="Not signed" error={sign.error} testId="sign-in-sign-error" /> : null}
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

/** Run, copy the composed token, and the one-line verdict. */
function SignInActions({ f }: { f: SignInFormState }) {
  const { sign, signIn } = f;
  const result = signIn.data;
  return (
    <div className="form-actions">
      <button
        type="submit"
        className="btn btn-small btn-primary"
        disabled={!f.ready || sign.isPending || signIn.isPending}
        data-testid="run-sign-in"
      >
        {sign.isPending ? 'Signing…' : signIn.isPending ? 'Running…' : 'Run sign-in'}
      </button>
      {f.mode === 'compose' && sign.data ? (
        <CopyButton text={() => sign.data?.token ?? ''} label="Copy token" testId="sign-in-copy-token" />
      ) : null}
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
  );
}
