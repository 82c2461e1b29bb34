import { type FormEvent } from 'react';
import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { JsonView } from '../../shared/json-view';
import { Segmented } from '../../shared/segmented';
import { analyzeTokenText } from '../../shared/token-text';
import { useCustomers } from '../../data/bank';
import { useSignJwt } from '../../data/jwt';
import { KidSelect } from '../../shared/kid-select';
import { useKeys } from '../../data/keys';
import { formatMs } from '../../shared/format';
import { EMPTY_SIGN_IN, showTrace, useSandboxStore, type SignInDraft } from './sandbox-store';
import { useSignIn } from '../../data/sandbox';

/** The composed token's lifetime: well inside the sandbox's 1 h limit (spec 2.4). */
const COMPOSED_TTL = 300;

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
  const guid = counterparty.counterparty_guid;
  const raw = useSandboxStore((s) => s.signInTokens[guid] ?? '');
  const setToken = useSandboxStore((s) => s.setSignInToken);
  const draft = useSandboxStore((s) => s.signInDrafts[guid]) ?? EMPTY_SIGN_IN;
  const setDraft = useSandboxStore((s) => s.setSignInDraft);
  const keys = useKeys();
  const customers = useCustomers();
  const sign = useSignJwt();
  const signIn = useSignIn(showTrace);
  const { token, stripped } = analyzeTokenText(raw);
  const kids = counterparty.jwks.map((j) => j.jwk.kid).filter((k): k is string => typeof k === 'string');
  const vaultKeys = keys.data ?? [];
  const registered = vaultKeys.filter((k) => kids.includes(k.kid));
  const mode = draft.mode ?? (registered.length > 0 ? 'compose' : 'paste');
  const kid = draft.kid ?? registered[0]?.kid ?? '';
  const customerList = customers.data ?? [];
  const obj = draft.obj ?? customerList[0]?.obj ?? '';
  const sub = draft.sub ?? customerList[0]?.sub ?? '';
  const id = `sign-in-token-${guid}`;
  const composeProblem =
    kid === ''
      ? 'choose a vault key'
      : obj.trim() === ''
        ? 'obj is required: the customer (IBAN or phone)'
        : sub.trim() === ''
          ? 'sub is required: who acts'
          : null;
  const ready = mode === 'paste' ? token !== '' : composeProblem === null;

  const edit = (patch: Partial<SignInDraft>) => {
    if (!signIn.isIdle) signIn.reset();
    if (!sign.isIdle) sign.reset();
    setDraft(guid, patch);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    if (mode === 'paste') {
      signIn.mutate({ counterparty_guid: guid, token });
      return;
    }
    sign.mutate(
      { kid, obj: obj.trim(), sub: sub.trim(), ttl: COMPOSED_TTL },
      { onSuccess: (signed) => signIn.mutate({ counterparty_guid: guid, token: signed.token }) },
    );
  };

  const result = signIn.data;
  const pending = sign.isPending || signIn.isPending;
  return (
    <form className="action-form" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`} className="subhead">
        Run sign-in
      </h4>
      <Segmented
        label="Bank JWT"
        name={`${id}-mode`}
        options={MODES}
        value={mode}
        onChange={(m) => edit({ mode: m })}
        testIdPrefix="sign-in-mode-"
      />
      {mode === 'compose' ? (
        <div className="notify-grid" data-testid="sign-in-compose">
          <div className="field">
            <label htmlFor={`${id}-kid`} className="field-label">
              Vault key <span className="field-hint">signs the bank JWT</span>
            </label>
            <KidSelect
              id={`${id}-kid`}
              keys={vaultKeys}
              value={kid}
              onChange={(k) => edit({ kid: k })}
              testId="sign-in-kid"
            />
            {kid !== '' && !kids.includes(kid) ? (
              <p className="field-note text-warn" data-testid="sign-in-kid-unregistered">
                {kid} is not registered for this counterparty: the sandbox will refuse the token.
              </p>
            ) : null}
            {registered.length === 0 ? (
              <p className="field-note muted" data-testid="sign-in-no-vault-key">
                No vault key is registered here: onboard with a vault key’s public JWK, or paste a JWT.
              </p>
            ) : null}
          </div>
          {customerList.length > 0 ? (
            <div className="field">
              <label htmlFor={`${id}-customer`} className="field-label">
                Customer <span className="field-hint">from the Bank page</span>
              </label>
              <select
                id={`${id}-customer`}
                className="input mono"
                value={customerList.find((c) => c.obj === obj)?.obj ?? ''}
                onChange={(e) => {
                  const c = customerList.find((x) => x.obj === e.target.value);
                  if (c) edit({ obj: c.obj, ...(c.sub !== undefined ? { sub: c.sub } : {}) });
                }}
                data-testid="sign-in-customer"
              >
                <option value="">other (type obj and sub)</option>
                {customerList.map((c) => (
                  <option key={c.obj} value={c.obj}>
                    {c.obj} · {c.external_id}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <div className="field">
            <label htmlFor={`${id}-obj`} className="field-label">
              obj <span className="field-hint">the customer: IBAN or phone</span>
            </label>
            <input
              id={`${id}-obj`}
              className="input mono"
              value={obj}
              onChange={(e) => edit({ obj: e.target.value })}
              spellCheck={false}
              autoComplete="off"
              data-testid="sign-in-obj"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-sub`} className="field-label">
              sub <span className="field-hint">who acts</span>
            </label>
            <input
              id={`${id}-sub`}
              className="input mono"
              value={sub}
              onChange={(e) => edit({ sub: e.target.value })}
              spellCheck={false}
              autoComplete="off"
              data-testid="sign-in-sub"
            />
          </div>
          <p className="field-note muted">
            {composeProblem ?? (
              <>
                Signed by the core with <code>{kid}</code>: <code>flow</code> = sign-in, <code>obj</code>,{' '}
                <code>sub</code>, <code>iat</code> now, <code>exp</code> in {COMPOSED_TTL / 60} min.
              </>
            )}
          </p>
        </div>
      ) : (
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
      )}
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-small btn-primary"
          disabled={!ready || pending}
          data-testid="run-sign-in"
        >
          {sign.isPending ? 'Signing…' : signIn.isPending ? 'Running…' : 'Run sign-in'}
        </button>
        {mode === 'compose' && sign.data ? (
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
