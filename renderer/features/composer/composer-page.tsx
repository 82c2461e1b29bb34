import { type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { MAX_BANK_JWT_LIFETIME_SECONDS } from '../../../electron/contract/schemas/sandbox';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { errorsFor, fieldOfError } from '../../shared/field-errors';
import { formatDuration, formatLocal } from '../../shared/format';
import { PageHead } from '../../shared/page-head';
import { DecodedPart } from '../../shared/report-views';
import { TokenView } from '../../shared/token-view';
import { EnvSummary } from '../environments/env-summary';
import { useActiveEnvironment } from '../environments/use-environments';
import { KidSelect } from '../keys/kid-select';
import { useKeys } from '../keys/use-keys';
import { AuthResultView } from '../service/auth-result';
import { useAuthenticate } from '../service/use-service';
import { buildSignInput, effectiveValues, type ComposerField } from './build-input';
import { draftFor, useComposerStore, type ComposerDraft } from './composer-store';
import { ComposerHistory, historyEntry, openTokenInInspector } from './composer-history';
import { useSignJwt } from './use-composer';
import './composer.css';

const FIELDS: readonly ComposerField[] = ['kid', 'obj', 'sub', 'iat', 'ttl'];
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function ComposerPage() {
  const keys = useKeys();
  const env = useActiveEnvironment();
  const envId = env?.id ?? '';
  const draft = useComposerStore(useShallow((s) => draftFor(s, envId)));
  const set = useComposerStore((s) => s.set);
  const remember = useComposerStore((s) => s.remember);
  const sign = useSignJwt();
  const send = useAuthenticate();
  const keyList = keys.data ?? [];
  const values = effectiveValues(draft, keyList, env);
  const { input, problems } = buildSignInput(values);
  const refused = sign.error ? fieldOfError(sign.error, FIELDS) : null;
  const errorFor = errorsFor<ComposerField>(problems, refused);
  const signed = sign.data;
  const stale = signed !== undefined && !sameJson(sign.variables, input);
  const ttl = Number(values.ttl);
  const iatLocal =
    values.iat.trim() !== '' ? formatLocal(new Date(Number(values.iat) * 1000).toISOString()) : null;

  const edit = (patch: Partial<ComposerDraft>) => {
    if (sign.error) sign.reset();
    set(envId, patch);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const invalid = FIELDS.find((f) => problems[f] !== undefined);
    if (invalid) {
      document.getElementById(`composer-${invalid}`)?.focus();
      return;
    }
    sign.mutate(input, {
      onSuccess: (result) => {
        send.reset();
        remember(historyEntry(result, input, envId));
      },
    });
  };

  // What the shown token was signed for (the form may have changed since: "stale").
  const signedFor = sign.variables ?? input;

  return (
    <div className="composer-page" data-testid="composer-page" data-state={keys.data ? 'ready' : 'loading'}>
      <PageHead title="JWT Composer">
        The bank’s JWT for <code>CX-Authorization</code> (spec 2.4): <code>flow</code> = sign-in,{' '}
        <code>obj</code>, <code>sub</code>, <code>iat</code>, <code>exp</code>, signed with a key from the
        vault.
      </PageHead>
      <EnvSummary env={env} />

      <div className="composer-grid">
        <form
          className="panel composer-form"
          onSubmit={submit}
          noValidate
          aria-labelledby="composer-form-title"
        >
          <h2 id="composer-form-title" className="panel-title">
            Claims
          </h2>
          <div className="panel-body composer-fields">
            {keys.data && keys.data.length === 0 ? (
              <p className="text-warn" data-testid="composer-no-keys">
                No signing key yet:{' '}
                <a href="#/keys" data-testid="composer-go-keys">
                  generate one on the Keys page
                </a>
                .
              </p>
            ) : null}
            {keys.error ? (
              <ErrorPanel title="Keys unavailable" error={keys.error} testId="composer-keys-error" />
            ) : null}
            <Field id="composer-kid" label="Key" hint="header kid and alg" error={errorFor('kid')}>
              <KidSelect
                id="composer-kid"
                keys={keyList}
                value={values.kid}
                onChange={(kid) => edit({ kid })}
                testId="composer-kid"
                describedBy="composer-kid-note"
              />
            </Field>
            <Field
              id="composer-obj"
              label="obj"
              hint="the customer acted on: IBAN or phone"
              error={errorFor('obj')}
            >
              <input
                id="composer-obj"
                className="input mono"
                value={values.obj}
                placeholder="DE89370400440532013000 or +4915112345678"
                onChange={(e) => edit({ obj: e.target.value })}
                spellCheck={false}
                autoComplete="off"
                aria-invalid={errorFor('obj') ? true : undefined}
                aria-describedby="composer-obj-note"
                data-testid="composer-obj"
              />
            </Field>
            <Field
              id="composer-sub"
              label="sub"
              hint="who initiates: employee or tech user"
              error={errorFor('sub')}
            >
              <input
                id="composer-sub"
                className="input mono"
                value={values.sub}
                placeholder="ops@bank.example"
                onChange={(e) => edit({ sub: e.target.value })}
                spellCheck={false}
                autoComplete="off"
                aria-invalid={errorFor('sub') ? true : undefined}
                aria-describedby="composer-sub-note"
                data-testid="composer-sub"
              />
            </Field>
            <div className="composer-times">
              <Field
                id="composer-iat"
                label="iat"
                hint="Unix seconds · empty: now"
                error={errorFor('iat')}
                note={iatLocal ?? 'signed at the moment you press Sign'}
              >
                <div className="input-row">
                  <input
                    id="composer-iat"
                    className="input mono"
                    inputMode="numeric"
                    value={values.iat}
                    placeholder="now"
                    onChange={(e) => edit({ iat: e.target.value })}
                    aria-invalid={errorFor('iat') ? true : undefined}
                    aria-describedby="composer-iat-note"
                    data-testid="composer-iat"
                  />
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => edit({ iat: String(nowSeconds()) })}
                    title="Fill in the current time, to edit it"
                    data-testid="composer-iat-now"
                  >
                    Now
                  </button>
                  {values.iat !== '' ? (
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => edit({ iat: '' })}
                      title="Sign with the time of signing"
                      data-testid="composer-iat-clear"
                    >
                      Clear
                    </button>
                  ) : null}
                </div>
              </Field>
              <Field
                id="composer-ttl"
                label="ttl"
                hint="seconds · exp = iat + ttl"
                error={errorFor('ttl')}
                note={
                  Number.isInteger(ttl) && ttl > 0
                    ? `lifetime ${formatDuration(ttl)}${ttl > MAX_BANK_JWT_LIFETIME_SECONDS ? ' (the sandbox accepts at most 1 h)' : ''}`
                    : undefined
                }
              >
                <input
                  id="composer-ttl"
                  className="input mono"
                  inputMode="numeric"
                  value={values.ttl}
                  onChange={(e) => edit({ ttl: e.target.value })}
                  aria-invalid={errorFor('ttl') ? true : undefined}
                  aria-describedby="composer-ttl-note"
                  data-testid="composer-ttl"
                />
              </Field>
            </div>
            {sign.error && refused?.field === null ? (
              <ErrorPanel title="Not signed" error={sign.error} testId="composer-error" />
            ) : null}
            <div className="form-actions">
              <button
                type="submit"
                className="btn btn-primary"
                disabled={sign.isPending || keyList.length === 0}
                data-testid="composer-sign"
              >
                {sign.isPending ? 'Signing…' : signed ? 'Sign again' : 'Sign'}
              </button>
              <span className="muted composer-flow">
                <code>flow</code> is always <code>sign-in</code> (spec 2.4)
              </span>
            </div>
          </div>
        </form>

        <div
          className="composer-output"
          data-testid="composer-output"
          data-state={signed ? (stale ? 'stale' : 'signed') : 'empty'}
        >
          {signed ? (
            <>
              <section className="panel" aria-labelledby="composer-token-title">
                <h2 id="composer-token-title" className="panel-title">
                  Token
                  {stale ? (
                    <span className="badge badge-warn" data-testid="composer-stale">
                      the form changed: sign again
                    </span>
                  ) : null}
                </h2>
                <div className="panel-body composer-token">
                  <TokenView token={signed.token} testId="composer-token" />
                  <div className="composer-actions">
                    <CopyButton text={() => signed.token} label="Copy token" testId="copy-token" />
                    <CopyButton
                      text={() => signed.header_line}
                      label="Copy CX-Authorization header"
                      testId="copy-header-line"
                    />
                    {signed.curl ? (
                      <CopyButton text={() => signed.curl ?? ''} label="Copy curl" testId="copy-curl" />
                    ) : (
                      <button
                        type="button"
                        className="btn btn-small"
                        disabled
                        title="The active environment needs a base URL and a counterparty GUID for a curl command"
                        data-testid="copy-curl"
                      >
                        Copy curl
                      </button>
                    )}
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => openTokenInInspector({ token: signed.token, ...signedFor }, keyList)}
                      data-testid="open-in-inspector"
                    >
                      Open in Inspector
                    </button>
                    <span className="panel-spacer" />
                    <button
                      type="button"
                      className="btn btn-small btn-primary"
                      onClick={() => send.mutate({ token: signed.token })}
                      disabled={send.isPending}
                      title={`POST …/jwk/authenticate in ${env?.name ?? 'the active environment'} with this token`}
                      data-testid="composer-send"
                    >
                      {send.isPending ? 'Sending…' : `Send to ${env?.name ?? 'the service'}`}
                    </button>
                  </div>
                </div>
              </section>
              {signed.warnings.length > 0 ? (
                <ul className="hints" data-testid="composer-warnings" aria-label="Hints">
                  <li className="hints-title">Hints, not errors: the token is signed as asked</li>
                  {signed.warnings.map((w) => (
                    <li key={w} data-testid="composer-warning">
                      {w}
                    </li>
                  ))}
                </ul>
              ) : null}
              <div className="decoded-grid composer-decoded">
                <DecodedPart title="Header" kind="header" value={signed.header} />
                <DecodedPart title="Claims" kind="payload" value={signed.payload} />
              </div>
              {send.error ? (
                <ErrorPanel title="Not sent" error={send.error} testId="composer-send-error" />
              ) : null}
              {send.data ? (
                <AuthResultView
                  result={send.data}
                  testId="composer-send-result"
                  jwksUrl={env?.effective_jwks_url ?? null}
                />
              ) : null}
            </>
          ) : (
            <div className="empty" data-testid="composer-empty">
              <h2>Sign a token</h2>
              <p>
                Pick the key, the customer (<code>obj</code>) and who acts (<code>sub</code>), then Sign. The
                token appears here coloured like the Inspector’s, with its decoded header and claims, ready to
                copy as a header or a curl, to open in the Inspector, or to send to the active environment’s
                authenticate endpoint.
              </p>
            </div>
          )}
        </div>
      </div>
      <ComposerHistory />
    </div>
  );
}
