import { useState, type FormEvent } from 'react';
import { schemas, type MethodInput } from '../../../electron/contract';
import { DialogActions } from '../../shared/dialog-actions';
import { errorsFor, fieldOfError, problemOf } from '../../shared/field-errors';
import { URL_FIELDS, useSandboxStore, type OnboardField } from './sandbox-store';
import { useOnboard } from '../../data/sandbox';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { TextAreaField } from '../../ui/text-area-field';

const FIELDS: readonly OnboardField[] = [
  'jwk',
  'counterparty_guid',
  'jwk_guid',
  'bank_auth_url',
  'bank_sender_url',
  'bank_receiver_url',
];

export const URL_LABELS = {
  bank_auth_url: {
    label: 'Bank auth URL',
    hint: 'the sandbox calls GET /user_auth, /key, /external_id here',
  },
  bank_sender_url: { label: 'Bank sender URL', hint: 'pay-out and transfer (to sender) notifications' },
  bank_receiver_url: { label: 'Bank receiver URL', hint: 'pay-in and transfer (to receiver) notifications' },
} as const;

/** The optional fields under the JWK: identifiers and the bank's URLs, all monospace. */
const ONBOARD_SPECS: readonly FieldSpec<Record<OnboardField, string>>[] = [
  {
    key: 'counterparty_guid' as OnboardField,
    label: 'Counterparty GUID',
    hint: 'optional · generated when empty',
  },
  { key: 'jwk_guid' as OnboardField, label: 'JWK GUID', hint: 'optional · generated when empty' },
  ...URL_FIELDS.map((f) => ({
    key: f,
    type: 'url',
    label: URL_LABELS[f].label,
    hint: `optional · ${URL_LABELS[f].hint}`,
    placeholder: 'http://127.0.0.1:7301',
  })),
].map((spec) => ({
  id: `onboard-${spec.key.replaceAll('_', '-')}`,
  type: 'text',
  mono: true,
  spellCheck: false,
  autoComplete: 'off',
  placeholder: '00000000-0000-0000-0000-000000000000',
  ...spec,
}));

/** The pasted JWK: a JSON object, public members only; null with the reason otherwise. */
export function parseJwk(text: string): { jwk: Record<string, unknown> | null; problem: string | null } {
  if (text.trim() === '') return { jwk: null, problem: 'Paste the public JWK your bank signs with.' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { jwk: null, problem: `Not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { jwk: null, problem: 'A JWK is a JSON object, e.g. {"kty":"RSA","n":"…","e":"AQAB","kid":"…"}.' };
  const jwk = value as Record<string, unknown>;
  if (Array.isArray(jwk.keys))
    return { jwk: null, problem: 'This is a JWKS: paste one key from its "keys" array.' };
  const secret = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'].filter((m) => m in jwk);
  if (secret.length > 0)
    return {
      jwk: null,
      problem: `This is a private key (it has ${secret.join(', ')}): paste the public JWK only, never the private one.`,
    };
  return { jwk, problem: null };
}

/** Problems found while typing, by field (only fields with text are judged, except the JWK). */
function liveProblems(draft: Record<OnboardField, string>): Partial<Record<OnboardField, string>> {
  const shape = schemas.OnboardInput.shape;
  const out: Partial<Record<OnboardField, string>> = {};
  if (draft.jwk.trim() !== '') {
    const { problem } = parseJwk(draft.jwk);
    if (problem) out.jwk = problem;
  }
  for (const f of ['counterparty_guid', 'jwk_guid'] as const) {
    const p = problemOf(shape[f].unwrap(), draft[f]);
    if (p) out[f] = p;
  }
  for (const f of URL_FIELDS) {
    const p = problemOf(shape[f].unwrap(), draft[f]);
    if (p) out[f] = p;
  }
  return out;
}

/** The onboarding form's draft (in the sandbox store), its problems and its submit. */
function useOnboardForm() {
  const draft = useSandboxStore((s) => s.onboard);
  const setDraft = useSandboxStore((s) => s.setOnboard);
  const resetDraft = useSandboxStore((s) => s.resetOnboard);
  const setOpen = useSandboxStore((s) => s.setOnboardOpen);
  const onboard = useOnboard((c) => useSandboxStore.getState().openCounterpartyOnly(c.counterparty_guid));
  // Set by the first submit: from then on a missing JWK is an error, not just an empty field.
  const [attempted, setAttempted] = useState(false);
  const problems = liveProblems(draft);
  const jwkCheck = parseJwk(draft.jwk);
  if (attempted && jwkCheck.problem) problems.jwk = jwkCheck.problem;
  // A refusal names the field; it stays until that field is edited or the form is sent again.
  const refused = onboard.error ? fieldOfError(onboard.error, FIELDS) : null;
  const errorFor = errorsFor<OnboardField>(problems, refused);
  const edit = (patch: Partial<Record<OnboardField, string>>) => {
    if (refused && refused.field !== null && refused.field in patch) onboard.reset();
    setDraft(patch);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAttempted(true);
    const jwk = jwkCheck.jwk;
    const invalid = FIELDS.find((f) => problems[f] !== undefined || (f === 'jwk' && jwk === null));
    if (invalid || !jwk) {
      document.getElementById(`onboard-${(invalid ?? 'jwk').replaceAll('_', '-')}`)?.focus();
      return;
    }
    const input: MethodInput<'sandbox.onboard'> = { jwk: jwk as MethodInput<'sandbox.onboard'>['jwk'] };
    for (const f of ['counterparty_guid', 'jwk_guid', ...URL_FIELDS] as const) {
      const v = draft[f].trim();
      if (v !== '') input[f] = v;
    }
    onboard.mutate(input, {
      onSuccess: () => {
        setAttempted(false);
        resetDraft();
        setOpen(false);
      },
      // Keyboard users land on the field the refusal names.
      onError: (err) => {
        const { field } = fieldOfError(err, FIELDS);
        if (field) document.getElementById(`onboard-${field.replaceAll('_', '-')}`)?.focus();
      },
    });
  };

  return { draft, setOpen, onboard, refused, errorFor, edit, submit };
}

/**
 * Onboarding (the service's procedure is not specified, spec 5 #2; the sandbox's stand-in):
 * the bank's initial public JWK, optional fixed GUIDs, and the bank's URLs.
 */
export function OnboardForm() {
  const { draft, setOpen, onboard, refused, errorFor, edit, submit } = useOnboardForm();
  return (
    <form
      className="onboard-form"
      onSubmit={submit}
      noValidate
      data-testid="onboard-form"
      aria-labelledby="onboard-title"
    >
      <h3 id="onboard-title" className="subhead">
        Onboard a counterparty
      </h3>
      <TextAreaField
        id="onboard-jwk"
        label="Public JWK"
        hint="required · JSON, as the spec lists it: alg, e, kid, kty, n, use"
        error={errorFor('jwk')}
        className="onboard-jwk"
        rows={6}
        value={draft.jwk}
        onChange={(jwk) => edit({ jwk })}
        spellCheck={false}
        placeholder={'{"kty":"RSA","alg":"RS256","use":"sig","kid":"bank-key-1","n":"…","e":"AQAB"}'}
      />
      <div className="form-grid">
        <DraftFields specs={ONBOARD_SPECS} draft={draft} edit={edit} errorFor={errorFor} />
      </div>
      {refused && refused.field === null ? (
        <p className="field-error" role="alert" data-testid="onboard-error">
          {refused.message}
        </p>
      ) : null}
      <DialogActions
        small
        confirmFirst
        onCancel={() => setOpen(false)}
        cancelTestId="onboard-cancel"
        confirmLabel={onboard.isPending ? 'Onboarding…' : 'Onboard'}
        confirmTestId="onboard-submit"
        confirmDisabled={onboard.isPending}
      />
    </form>
  );
}
