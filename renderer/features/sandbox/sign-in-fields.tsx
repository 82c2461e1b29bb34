import { KidSelect } from '../../shared/kid-select';
import { COMPOSED_TTL, type SignInFormState } from './use-sign-in-form';

/** A plain text input of the compose fields (no error wiring: the form shows one problem line). */
function ClaimInput({
  f,
  name,
  label,
  hint,
}: {
  f: SignInFormState;
  name: 'obj' | 'sub';
  label: string;
  hint: string;
}) {
  return (
    <div className="field">
      <label htmlFor={`${f.id}-${name}`} className="field-label">
        {label} <span className="field-hint">{hint}</span>
      </label>
      <input
        id={`${f.id}-${name}`}
        className="input mono"
        value={f[name]}
        onChange={(e) => f.edit({ [name]: e.target.value })}
        spellCheck={false}
        autoComplete="off"
        data-testid={`sign-in-${name}`}
      />
    </div>
  );
}

/** Compose mode: the vault key, a customer from the Bank page, obj and sub. */
export function ComposeFields({ f }: { f: SignInFormState }) {
  const { id, kid, kids, registered, customerList, obj, edit } = f;
  return (
    <div className="notify-grid" data-testid="sign-in-compose">
      <div className="field">
        <label htmlFor={`${id}-kid`} className="field-label">
          Vault key <span className="field-hint">signs the bank JWT</span>
        </label>
        <KidSelect
          id={`${id}-kid`}
          keys={f.vaultKeys}
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
      <ClaimInput f={f} name="obj" label="obj" hint="the customer: IBAN or phone" />
      <ClaimInput f={f} name="sub" label="sub" hint="who acts" />
      <p className="field-note muted">
        {f.composeProblem ?? (
          <>
            Signed by the core with <code>{kid}</code>: <code>flow</code> = sign-in, <code>obj</code>,{' '}
            <code>sub</code>, <code>iat</code> now, <code>exp</code> in {COMPOSED_TTL / 60} min.
          </>
        )}
      </p>
    </div>
  );
}

/** Paste mode: the bank JWT as text, with what it must hold and what was stripped from it. */
export function PasteField({ f }: { f: SignInFormState }) {
  const { id, kids, stripped } = f;
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        Bank JWT <span className="field-hint">sent as CX-Authorization</span>
      </label>
      <textarea
        id={id}
        className="input mono sign-in-token"
        rows={3}
        value={f.raw}
        onChange={(e) => f.paste(e.target.value)}
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
        {!f.counterparty.bank_auth_url ? (
          <span className="text-warn"> Set the bank auth URL first: the flow calls its GET /user_auth.</span>
        ) : null}
      </p>
    </div>
  );
}
