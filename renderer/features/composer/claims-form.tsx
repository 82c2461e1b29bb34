import { MAX_BANK_JWT_LIFETIME_SECONDS } from '../../../electron/contract/schemas/sandbox';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { formatDuration, formatLocal } from '../../shared/format';
import { KidSelect } from '../../shared/kid-select';
import { TextField, TextInput } from '../../ui/text-field';
import type { ComposerState } from './use-composer';
import { Allowed } from '../../shared/allowed';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The Composer's claims form: key, obj, sub, the times, and Sign (spec 2.4). */
export function ClaimsForm({ c }: { c: ComposerState }) {
  const { keys, keyList, values, errorFor, edit, sign, signed } = c;
  return (
    <form
      className="panel composer-form"
      onSubmit={c.submit}
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
        <TextField
          id="composer-obj"
          label="obj"
          hint="the customer acted on: IBAN or phone"
          error={errorFor('obj')}
          mono
          value={values.obj}
          placeholder="DE89370400440532013000 or +4915112345678"
          onChange={(obj) => edit({ obj })}
          spellCheck={false}
          autoComplete="off"
        />
        <TextField
          id="composer-sub"
          label="sub"
          hint="who initiates: employee or tech user"
          error={errorFor('sub')}
          mono
          value={values.sub}
          placeholder="ops@bank.example"
          onChange={(sub) => edit({ sub })}
          spellCheck={false}
          autoComplete="off"
        />
        <TimeFields c={c} />
        {sign.error && c.refused?.field === null ? (
          <ErrorPanel title="Not signed" error={sign.error} testId="composer-error" />
        ) : null}
        <div className="form-actions">
          <Allowed method="jwt.sign">
            <button
              type="submit"
              className="btn btn-primary"
              disabled={sign.isPending || keyList.length === 0}
              data-testid="composer-sign"
            >
              {sign.isPending ? 'Signing…' : signed ? 'Sign again' : 'Sign'}
            </button>
          </Allowed>
          <span className="muted composer-flow">
            <code>flow</code> is always <code>sign-in</code> (spec 2.4)
          </span>
        </div>
      </div>
    </form>
  );
}

/** iat (with Now and Clear) and ttl, with the local time and the lifetime they stand for. */
function TimeFields({ c }: { c: ComposerState }) {
  const { values, errorFor, edit } = c;
  const ttl = Number(values.ttl);
  const iatLocal =
    values.iat.trim() !== '' ? formatLocal(new Date(Number(values.iat) * 1000).toISOString()) : null;
  return (
    <div className="composer-times">
      <Field
        id="composer-iat"
        label="iat"
        hint="Unix seconds · empty: now"
        error={errorFor('iat')}
        note={iatLocal ?? 'signed at the moment you press Sign'}
      >
        <div className="input-row">
          <TextInput
            id="composer-iat"
            mono
            inputMode="numeric"
            value={values.iat}
            placeholder="now"
            onChange={(iat) => edit({ iat })}
            error={errorFor('iat')}
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
      <TextField
        id="composer-ttl"
        label="ttl"
        hint="seconds · exp = iat + ttl"
        error={errorFor('ttl')}
        note={
          Number.isInteger(ttl) && ttl > 0
            ? `lifetime ${formatDuration(ttl)}${ttl > MAX_BANK_JWT_LIFETIME_SECONDS ? ' (the sandbox accepts at most 1 h)' : ''}`
            : undefined
        }
        mono
        inputMode="numeric"
        value={values.ttl}
        onChange={(ttl) => edit({ ttl })}
      />
    </div>
  );
}
