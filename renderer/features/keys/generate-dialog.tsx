import { schemas, type MethodInput } from '../../../electron/contract';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { Dialog } from '../../ui/dialog';
import { useContractForm } from '../../ui/use-contract-form';
import { useKeysStore } from './keys-store';
import { ALGS, BITS, useGenerateKey } from '../../data/keys';

const FIELDS = ['alg', 'bits', 'kid', 'label', 'expires', 'counterparty_guid'] as const;
interface Draft {
  alg: (typeof ALGS)[number];
  bits: (typeof BITS)[number];
  kid: string;
  label: string;
  expires: string;
  counterparty_guid: string;
}

/** The dialog's fields (DESIGN.md "keys": RS256/2048 by default, every other field optional). */
const SPECS: readonly FieldSpec<Draft>[] = [
  {
    key: 'alg',
    id: 'gen-alg',
    label: 'Algorithm',
    hint: 'RS256 in every example of the guide',
    values: ALGS,
  },
  { key: 'bits', id: 'gen-bits', label: 'Key size', hint: 'bits', values: BITS, parse: Number },
  {
    key: 'kid',
    id: 'gen-kid',
    label: 'kid',
    hint: 'optional · empty: a new UUID',
    mono: true,
    placeholder: 'e.g. bank-2025-06 or 54321',
    spellCheck: false,
    autoComplete: 'off',
    autofocus: true,
  },
  {
    key: 'label',
    id: 'gen-label',
    label: 'Label',
    hint: 'optional · for people',
    placeholder: 'e.g. Production signing 2025',
  },
  {
    key: 'expires',
    id: 'gen-expires',
    label: 'Expires',
    hint: 'optional · last valid day',
    note: 'The header warns 30 days before; rotate in time.',
    type: 'date',
  },
  {
    key: 'counterparty_guid',
    id: 'gen-counterparty',
    label: 'Counterparty GUID',
    hint: 'optional · which registration it belongs to',
    mono: true,
    placeholder: '00000000-0000-0000-0000-000000000000',
    spellCheck: false,
    autoComplete: 'off',
  },
];

const EMPTY: Draft = { alg: 'RS256', bits: 2048, kid: '', label: '', expires: '', counterparty_guid: '' };

/** The argument of keys.generate: empty fields are left out (the core picks a UUID kid). */
export function generateInput(d: Draft): MethodInput<'keys.generate'> {
  const input: MethodInput<'keys.generate'> = { alg: d.alg, bits: d.bits };
  if (d.kid.trim() !== '') input.kid = d.kid.trim();
  if (d.label.trim() !== '') input.label = d.label.trim();
  if (d.expires !== '') input.expires = d.expires;
  if (d.counterparty_guid.trim() !== '') input.counterparty_guid = d.counterparty_guid.trim();
  return input;
}

/** Generate an RSA signing key into the vault (DESIGN.md "keys": RS256/2048 by default). */
export function GenerateDialog() {
  const close = useKeysStore((s) => s.close);
  const setHighlight = useKeysStore((s) => s.setHighlight);
  const generate = useGenerateKey();
  const form = useContractForm({
    initial: EMPTY,
    fields: FIELDS,
    toInput: generateInput,
    schema: schemas.GenerateKeyInput,
    mutation: generate,
  });
  const { draft, edit, errorFor } = form;
  const submit = form.submit((key) => {
    setHighlight(key.kid);
    close();
  });

  return (
    <Dialog title="Generate a signing key" onClose={close} testId="generate-dialog">
      <form onSubmit={submit} noValidate className="dialog-form">
        <div className="form-grid-2">
          <DraftFields specs={SPECS} draft={draft} edit={edit} errorFor={errorFor} />
        </div>
        <p className="muted dialog-note">
          The private key is generated and sealed in the vault by the console’s core; this page only ever sees
          its public JWK and fingerprint.
        </p>
        {form.unplaced ? (
          <ErrorPanel title="Not generated" error={form.unplaced} testId="generate-error" />
        ) : null}
        <DialogActions
          small
          onCancel={close}
          cancelTestId="generate-cancel"
          confirmLabel={generate.isPending ? 'Generating…' : 'Generate key'}
          confirmTestId="generate-submit"
          confirmDisabled={generate.isPending || !form.valid}
        />
      </form>
    </Dialog>
  );
}
