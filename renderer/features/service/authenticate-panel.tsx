import { type FormEvent } from 'react';
import type { MethodInput } from '../../../electron/contract';
import type { Environment } from '../../../electron/contract/schemas/service';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { TextField } from '../../ui/text-field';
import { Segmented } from '../../shared/segmented';
import { analyzeTokenText } from '../../shared/token-text';
import { defaultKid } from '../../data/keys';
import { KidSelect } from '../../shared/kid-select';
import { useKeys } from '../../data/keys';
import { AuthResultView } from '../../shared/auth-result';
import { useServiceStore, type AuthMode } from './service-store';
import { useAuthenticate } from '../../data/service';
import { Allowed } from '../../shared/allowed';

const MODES: Array<{ value: AuthMode; label: string }> = [
  { value: 'compose', label: 'Compose with a vault key' },
  { value: 'paste', label: 'Paste a token' },
];

/** What service.authenticate is sent: the pasted token, or the claims to compose; null while incomplete. */
function authInput(
  mode: AuthMode,
  token: string,
  kid: string,
  obj: string,
  sub: string,
): MethodInput<'service.authenticate'> | null {
  if (mode === 'paste') return token !== '' ? { token } : null;
  return kid !== '' && obj.trim() !== '' && sub.trim() !== ''
    ? { kid, obj: obj.trim(), sub: sub.trim() }
    : null;
}

/**
 * POST …/jwk/authenticate (spec 4.1 #2) in the active environment, in one click: the core
 * composes the bank JWT with the environment's key and default claims, or sends a pasted one.
 */
export function AuthenticatePanel({ env }: { env: Environment | null }) {
  const keys = useKeys().data ?? [];
  const mode = useServiceStore((s) => s.authMode);
  const setMode = useServiceStore((s) => s.setAuthMode);
  const draft = useServiceStore((s) => s.auth);
  const setDraft = useServiceStore((s) => s.setAuth);
  const pasted = useServiceStore((s) => s.pastedToken);
  const setPasted = useServiceStore((s) => s.setPastedToken);
  const authenticate = useAuthenticate();
  const kid = draft.kid ?? defaultKid(keys, env);
  const obj = draft.obj ?? env?.default_obj ?? '';
  const sub = draft.sub ?? env?.default_sub ?? '';
  const { token, stripped } = analyzeTokenText(pasted);

  const input = authInput(mode, token, kid, obj, sub);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (input) authenticate.mutate(input);
  };

  return (
    <section className="panel" aria-labelledby="auth-title" data-testid="authenticate-panel">
      <h2 id="auth-title" className="panel-title">
        Authenticate <span className="panel-note">POST …/counterparty/{'{guid}'}/jwk/authenticate</span>
      </h2>
      <form className="panel-body auth-form" onSubmit={submit} noValidate>
        <Segmented label="Token" name="auth-mode" options={MODES} value={mode} onChange={setMode} />
        {mode === 'compose' ? (
          <div className="auth-grid">
            <Field id="auth-kid" label="Key" hint="default: the environment’s">
              <KidSelect
                id="auth-kid"
                keys={keys}
                value={kid}
                onChange={(v) => setDraft({ kid: v })}
                testId="auth-kid"
              />
            </Field>
            <TextField
              id="auth-obj"
              label="obj"
              hint="IBAN or phone"
              mono
              value={obj}
              placeholder="DE89370400440532013000"
              onChange={(v) => setDraft({ obj: v })}
              spellCheck={false}
              autoComplete="off"
            />
            <TextField
              id="auth-sub"
              label="sub"
              hint="who acts"
              mono
              value={sub}
              placeholder="ops@bank.example"
              onChange={(v) => setDraft({ sub: v })}
              spellCheck={false}
              autoComplete="off"
            />
          </div>
        ) : (
          <PastedToken pasted={pasted} stripped={stripped} onChange={setPasted} />
        )}
        <div className="form-actions">
          <Allowed method="service.authenticate">
            <button
              type="submit"
              className="btn btn-small btn-primary"
              disabled={input === null || authenticate.isPending}
              data-testid="service-authenticate"
            >
              {authenticate.isPending ? 'Authenticating…' : 'Authenticate'}
            </button>
          </Allowed>
          {mode === 'compose' && input === null ? (
            <span className="muted">
              {kid === '' ? 'Choose a key' : 'Fill in obj and sub'} (or set defaults on the environment).
            </span>
          ) : null}
        </div>
        {authenticate.error ? (
          <ErrorPanel title="Not sent" error={authenticate.error} testId="authenticate-error" />
        ) : null}
      </form>
      {authenticate.data ? (
        <div className="panel-body">
          <AuthResultView
            result={authenticate.data}
            testId="authenticate-result"
            jwksUrl={env?.effective_jwks_url ?? null}
          />
        </div>
      ) : null}
    </section>
  );
}

/** Paste mode: the bank JWT as text, and what was stripped from it. */
function PastedToken({
  pasted,
  stripped,
  onChange,
}: {
  pasted: string;
  stripped: readonly string[];
  onChange: (text: string) => void;
}) {
  return (
    <Field
      id="auth-token"
      label="Bank JWT"
      hint="sent as CX-Authorization"
      note={stripped.length > 0 ? `stripped: ${stripped.join(', ').replaceAll('`', '')}` : undefined}
    >
      <textarea
        id="auth-token"
        className="input mono auth-token"
        rows={4}
        value={pasted}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
        autoComplete="off"
        placeholder="eyJhbGciOiJSUzI1NiIsImtpZCI6…"
        aria-describedby="auth-token-note"
        data-testid="auth-token"
      />
    </Field>
  );
}
