import { useState, type FormEvent } from 'react';
import type { Environment } from '../../../electron/contract/schemas/service';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { errorsFor, fieldOfError } from '../../shared/field-errors';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/text-field';
import { useKeys } from '../../data/keys';
import {
  EMPTY_ENV_DRAFT,
  ENV_FIELDS,
  derivedJwksUrl,
  draftOf,
  editableFields,
  envProblems,
  saveInput,
  type EnvDraft,
  type EnvField,
} from './env-form';
import { useEnvironmentsStore } from './environments-store';
import { useSaveEnvironment } from '../../data/environments';

const LABELS: Record<EnvField, { label: string; hint: string; placeholder?: string }> = {
  name: { label: 'Name', hint: 'required', placeholder: 'e.g. Test (bank-side UAT)' },
  base_url: {
    label: 'Base URL',
    hint: 'required · the service’s {base_url}',
    placeholder: 'https://dets.example.com',
  },
  counterparty_guid: {
    label: 'Counterparty GUID',
    hint: 'from onboarding',
    placeholder: '00000000-0000-0000-0000-000000000000',
  },
  active_kid: { label: 'Active key', hint: 'signs tokens for this environment' },
  default_obj: {
    label: 'Default obj',
    hint: 'the customer: IBAN or phone',
    placeholder: 'DE89370400440532013000',
  },
  default_sub: {
    label: 'Default sub',
    hint: 'who acts: employee or tech user',
    placeholder: 'ops@bank.example',
  },
  service_jwks_url: { label: 'Service JWKS URL', hint: 'optional · empty: derived from the base URL' },
};

/** The environment dialog's draft, problems and submit (the sandbox: its own fields only). */
function useEnvDialog(env: Environment | null) {
  const close = useEnvironmentsStore((s) => s.close);
  const save = useSaveEnvironment();
  const keys = useKeys().data ?? [];
  const [draft, setDraft] = useState<EnvDraft>(() => (env ? draftOf(env) : EMPTY_ENV_DRAFT));
  const [attempted, setAttempted] = useState(false);
  const editable = editableFields(env);
  const problems = envProblems(draft, env, attempted);
  const refused = save.error ? fieldOfError(save.error, ENV_FIELDS) : null;
  const errorFor = errorsFor<EnvField>(problems, refused);
  const input = saveInput(draft, env);
  const changed = Object.keys(input).filter((k) => k !== 'id').length > 0;
  const isSandbox = env?.kind === 'sandbox';

  const edit = (patch: Partial<EnvDraft>) => {
    if (refused && refused.field !== null && refused.field in patch) save.reset();
    setDraft((d) => ({ ...d, ...patch }));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAttempted(true);
    const all = envProblems(draft, env, true);
    const invalid = ENV_FIELDS.find((f) => all[f] !== undefined);
    if (invalid) {
      document.getElementById(`env-${invalid.replaceAll('_', '-')}`)?.focus();
      return;
    }
    if (!changed) {
      close();
      return;
    }
    save.mutate(input, {
      onSuccess: close,
      onError: (err) => {
        const { field } = fieldOfError(err, ENV_FIELDS);
        if (field) document.getElementById(`env-${field.replaceAll('_', '-')}`)?.focus();
      },
    });
  };

  const kidOptions = keys.map((k) => k.kid);
  if (draft.active_kid && !kidOptions.includes(draft.active_kid)) kidOptions.unshift(draft.active_kid);
  const derived = derivedJwksUrl(isSandbox ? (env?.base_url ?? '') : draft.base_url);

  return {
    env,
    draft,
    edit,
    errorFor,
    refused,
    save,
    close,
    isSandbox,
    editable,
    keys,
    kidOptions,
    derived,
    submit,
  };
}

/** Add a real environment, or edit one (the sandbox: its per-profile fields only). */
export function EnvDialog({ env }: { env: Environment | null }) {
  const f = useEnvDialog(env);
  const { refused, save, close, isSandbox } = f;
  const text = (field: EnvField, type: 'text' | 'url' = 'text') => (
    <EnvTextField key={field} f={f} field={field} type={type} />
  );
  return (
    <Dialog
      title={env ? `Edit ${env.name}` : 'Add a real environment'}
      onClose={close}
      testId="env-dialog"
      wide
    >
      <form onSubmit={f.submit} noValidate className="dialog-form env-form" data-testid="env-form">
        {isSandbox ? (
          <p className="muted dialog-note">
            The sandbox’s URL and JWKS are its own listener’s. What this profile sets on it: the counterparty
            GUID, the key it signs with, and the default claims.
          </p>
        ) : null}
        <div className="form-grid-2">
          {text('name')}
          {text('base_url', 'url')}
          {text('counterparty_guid')}
          <ActiveKidField f={f} />
          {text('default_obj')}
          {text('default_sub')}
          <div className="span-2">{text('service_jwks_url', 'url')}</div>
        </div>
        {save.error && refused?.field === null ? (
          <ErrorPanel title="Not saved" error={save.error} testId="env-save-error" />
        ) : null}
        <DialogActions
          small
          onCancel={close}
          cancelTestId="env-cancel"
          confirmLabel={save.isPending ? 'Saving…' : env ? 'Save' : 'Add environment'}
          confirmTestId="env-save"
          confirmDisabled={save.isPending}
        />
      </form>
    </Dialog>
  );
}

type EnvDialogState = ReturnType<typeof useEnvDialog>;

/** One text field of the draft; read-only where the sandbox sets it. */
function EnvTextField({ f, field, type }: { f: EnvDialogState; field: EnvField; type: 'text' | 'url' }) {
  const id = `env-${field.replaceAll('_', '-')}`;
  const readOnly = !f.editable.includes(field);
  return (
    <TextField
      id={id}
      label={LABELS[field].label}
      hint={readOnly ? 'set by the sandbox' : LABELS[field].hint}
      error={readOnly ? undefined : f.errorFor(field)}
      type={type}
      className={field === 'name' ? '' : 'mono'}
      value={f.draft[field]}
      readOnly={readOnly}
      placeholder={
        field === 'service_jwks_url'
          ? (f.derived ?? 'derived from the base URL')
          : (LABELS[field].placeholder ?? '')
      }
      onChange={(v) => f.edit({ [field]: v })}
      spellCheck={false}
      autoComplete="off"
    />
  );
}

/** The key this environment signs with: the vault's keys, and the one set if it is not there. */
function ActiveKidField({ f }: { f: EnvDialogState }) {
  const { draft, edit, errorFor, keys, kidOptions } = f;
  return (
    <Field
      id="env-active-kid"
      label={LABELS.active_kid.label}
      hint={LABELS.active_kid.hint}
      error={errorFor('active_kid')}
    >
      <select
        id="env-active-kid"
        className="input mono"
        value={draft.active_kid}
        onChange={(e) => edit({ active_kid: e.target.value })}
        aria-describedby="env-active-kid-note"
        data-testid="env-active-kid"
      >
        <option value="">none</option>
        {kidOptions.map((kid) => {
          const key = keys.find((k) => k.kid === kid);
          return (
            <option key={kid} value={kid}>
              {kid}
              {key ? ` · ${key.alg} · ${key.status}` : ' · not in this vault'}
            </option>
          );
        })}
      </select>
    </Field>
  );
}
