import { type FormEvent } from 'react';
import { schemas } from '../../../electron/contract';
import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { ErrorPanel } from '../../shared/error-panel';
import { errorsFor, fieldOfError, problemOf } from '../../shared/field-errors';
import { Field } from '../../shared/field';
import { URL_LABELS } from './onboard-form';
import { URL_FIELDS, useSandboxStore, type UrlDraft, type UrlField } from './sandbox-store';
import { useUpdateCounterparty } from '../../data/sandbox';

function savedDraft(c: Counterparty): UrlDraft {
  return {
    bank_auth_url: c.bank_auth_url ?? '',
    bank_sender_url: c.bank_sender_url ?? '',
    bank_receiver_url: c.bank_receiver_url ?? '',
  };
}

/** The bank's three URLs for one counterparty: checked while typing, saved together; empty clears one. */
export function BankUrlsForm({ counterparty }: { counterparty: Counterparty }) {
  const guid = counterparty.counterparty_guid;
  const saved = savedDraft(counterparty);
  const draft = useSandboxStore((s) => s.urlDrafts[guid]) ?? saved;
  const setDraft = useSandboxStore((s) => s.setUrlDraft);
  const update = useUpdateCounterparty();
  const shape = schemas.UpdateCounterpartyInput.shape;

  const problems: Partial<Record<UrlField, string>> = {};
  for (const f of URL_FIELDS) {
    const p = problemOf(shape[f].unwrap().unwrap(), draft[f]);
    if (p) problems[f] = p;
  }
  const changed = URL_FIELDS.filter((f) => draft[f].trim() !== saved[f]);
  const refused = update.error ? fieldOfError(update.error, URL_FIELDS) : null;
  const errorFor = errorsFor(problems, refused);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (changed.length === 0 || Object.keys(problems).length > 0) return;
    const input: Parameters<typeof update.mutate>[0] = { counterparty_guid: guid };
    for (const f of changed) input[f] = draft[f].trim() === '' ? null : draft[f].trim();
    update.mutate(input, { onSuccess: () => setDraft(guid, null) });
  };

  return (
    <form className="bank-urls" onSubmit={submit} noValidate data-testid={`bank-urls-${guid}`}>
      {URL_FIELDS.map((f) => {
        const id = `${f.replaceAll('_', '-')}-${guid}`;
        const error = errorFor(f);
        return (
          <Field key={f} id={id} label={URL_LABELS[f].label} hint={URL_LABELS[f].hint} error={error}>
            <input
              id={id}
              type="url"
              className={`input mono ${draft[f].trim() !== saved[f] ? 'is-edited' : ''}`}
              value={draft[f]}
              placeholder="not set: http://127.0.0.1:7301"
              onChange={(e) => {
                if (update.error) update.reset();
                setDraft(guid, { ...draft, [f]: e.target.value });
              }}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={error ? true : undefined}
              aria-describedby={`${id}-note`}
              data-testid={`${f.replaceAll('_', '-')}-input`}
            />
          </Field>
        );
      })}
      {update.error && refused?.field === null ? (
        <ErrorPanel title="Not saved" error={update.error} testId="bank-urls-error" />
      ) : null}
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-small btn-primary"
          disabled={changed.length === 0 || Object.keys(problems).length > 0 || update.isPending}
          data-testid="save-bank-urls"
        >
          {update.isPending ? 'Saving…' : 'Save URLs'}
        </button>
        {changed.length > 0 ? (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              update.reset();
              setDraft(guid, null);
            }}
            data-testid="revert-bank-urls"
          >
            Revert
          </button>
        ) : update.isSuccess ? (
          <span className="muted" role="status" data-testid="bank-urls-saved">
            Saved.
          </span>
        ) : null}
      </div>
    </form>
  );
}
