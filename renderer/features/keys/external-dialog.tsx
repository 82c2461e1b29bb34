import { schemas, type MethodInput } from '../../../electron/contract';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { Dialog } from '../../ui/dialog';
import { TextAreaField } from '../../ui/text-area-field';
import { useContractForm } from '../../ui/use-contract-form';
import { ALGS, useAddExternalKey } from '../../data/keys';
import { useKeysStore } from './keys-store';

const FIELDS = ['public_key', 'kid', 'alg', 'sign_command', 'label', 'expires', 'status'] as const;

interface Draft {
  public_key: string;
  kid: string;
  alg: '' | (typeof ALGS)[number];
  sign_command: string;
  label: string;
  expires: string;
  status: '' | 'active' | 'next';
}

/** An example a bank adapts: SoftHSM or a real token through OpenSC's pkcs11-tool, the PIN in an env variable. */
const PKCS11_EXAMPLE =
  'pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --token-label bank --login --pin env:HSM_PIN --sign --id 01 -m SHA256-RSA-PKCS -i {in} -o {out}';

const SPECS: readonly FieldSpec<Draft>[] = [
  {
    key: 'kid',
    id: 'external-kid',
    label: 'kid',
    hint: 'the kid the service knows it by · else the JWK’s',
    mono: true,
    spellCheck: false,
    autoComplete: 'off',
  },
  {
    key: 'alg',
    id: 'external-alg',
    label: 'Algorithm',
    hint: 'what the command signs with · else the JWK’s, else RS256',
    values: ALGS,
    empty: 'from the key',
  },
  {
    key: 'label',
    id: 'external-label',
    label: 'Label',
    hint: 'optional',
    placeholder: 'e.g. Production HSM',
  },
  {
    key: 'expires',
    id: 'external-expires',
    label: 'Expires',
    hint: 'optional · last valid day',
    type: 'date',
  },
  {
    key: 'status',
    id: 'external-status',
    label: 'Status',
    hint: 'next: for a rotation',
    values: ['active', 'next'],
    empty: 'active if none is',
  },
];

const EMPTY: Draft = {
  public_key: '',
  kid: '',
  alg: '',
  sign_command: '',
  label: '',
  expires: '',
  status: '',
};

/** The argument of keys.addExternal: empty optional fields are left out. */
export function externalInput(d: Draft): MethodInput<'keys.addExternal'> {
  const input: MethodInput<'keys.addExternal'> = {
    public_key: d.public_key,
    sign_command: d.sign_command.trim(),
  };
  if (d.kid.trim() !== '') input.kid = d.kid.trim();
  if (d.alg !== '') input.alg = d.alg;
  if (d.label.trim() !== '') input.label = d.label.trim();
  if (d.expires !== '') input.expires = d.expires;
  if (d.status !== '') input.status = d.status;
  return input;
}

/**
 * "Add a key held elsewhere" (DESIGN.md "Keys held elsewhere"): the public key and the command
 * that signs with the private part in an HSM, a cloud KMS or Vault. Nothing secret is typed
 * here: the core refuses a command holding a PIN or token, and makes a test signature that must
 * verify before it stores the key.
 */
export function ExternalDialog() {
  const close = useKeysStore((s) => s.close);
  const setHighlight = useKeysStore((s) => s.setHighlight);
  const add = useAddExternalKey();
  const form = useContractForm({
    initial: EMPTY,
    fields: FIELDS,
    toInput: externalInput,
    schema: schemas.AddExternalKeyInput,
    mutation: add,
    notYet: (d) => [
      ...(d.public_key === '' ? (['public_key'] as const) : []),
      ...(d.sign_command === '' ? (['sign_command'] as const) : []),
    ],
  });
  const { draft, edit, errorFor } = form;
  const submit = form.submit((key) => {
    setHighlight(key.kid);
    close();
  });
  const incomplete = draft.public_key.trim() === '' || draft.sign_command.trim() === '';

  return (
    <Dialog title="Add a key held elsewhere" onClose={close} testId="external-dialog" wide>
      <form onSubmit={submit} noValidate className="dialog-form">
        <p className="muted dialog-note">
          For a key whose private part lives in an HSM, a cloud KMS or Vault and never enters the console. The
          console writes the signing input to <code>{'{in}'}</code>, runs your command without a shell (10 s
          at most), reads the signature from <code>{'{out}'}</code> (or what it prints) and verifies it
          against the public key before using any token. Recipes: docs/keys-held-elsewhere.md.
        </p>
        <TextAreaField
          id="external-public"
          label="Public key"
          hint="PEM (PUBLIC KEY, RSA PUBLIC KEY or a certificate) or a public JWK"
          error={errorFor('public_key')}
          rows={6}
          value={draft.public_key}
          onChange={(value) => edit({ public_key: value })}
          spellCheck={false}
          autoComplete="off"
          placeholder={'-----BEGIN PUBLIC KEY-----\nor {"kty":"RSA","n":"…","e":"AQAB"}'}
          data-autofocus
        />
        <TextAreaField
          id="external-command"
          label="Signing command"
          hint="{in} input file · {out} signature file · {alg} · no PIN, password or token: use the tool’s own store (pkcs11-tool --pin env:VAR, aws/gcloud/az login, vault login)"
          error={errorFor('sign_command')}
          rows={3}
          value={draft.sign_command}
          onChange={(value) => edit({ sign_command: value })}
          spellCheck={false}
          autoComplete="off"
          placeholder={PKCS11_EXAMPLE}
        />
        <div className="form-grid-2">
          <DraftFields specs={SPECS} draft={draft} edit={edit} errorFor={errorFor} />
        </div>
        {form.unplaced ? (
          <ErrorPanel title="Not added" error={form.unplaced} testId="external-error" />
        ) : null}
        <DialogActions
          small
          onCancel={close}
          cancelTestId="external-cancel"
          confirmLabel={add.isPending ? 'Testing the command…' : 'Test and add'}
          confirmTestId="external-submit"
          confirmDisabled={add.isPending || incomplete || !form.valid}
        />
      </form>
    </Dialog>
  );
}
