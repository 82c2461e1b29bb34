import { useState, type FormEvent } from 'react';
import { schemas, type MethodInput } from '../../../electron/contract';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { TextAreaField } from '../../ui/text-area-field';
import { Dialog } from '../../ui/dialog';
import { useContractForm } from '../../ui/use-contract-form';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { ALGS } from '../../data/keys';
import { useKeysStore } from './keys-store';
import { useImportKey } from '../../data/keys';

const FIELDS = ['text', 'kid', 'alg', 'label', 'expires'] as const;

interface Meta {
  text: string;
  kid: string;
  alg: '' | (typeof ALGS)[number];
  label: string;
  expires: string;
}

/** The optional fields under the key text (the core fills what is left empty). */
const SPECS: readonly FieldSpec<Meta>[] = [
  {
    key: 'kid',
    id: 'import-kid',
    label: 'kid',
    hint: 'optional · else the JWK’s kid, else a UUID',
    mono: true,
    spellCheck: false,
    autoComplete: 'off',
  },
  {
    key: 'alg',
    id: 'import-alg',
    label: 'Algorithm',
    hint: 'optional · else from the key, else RS256',
    values: ALGS,
    empty: 'from the key',
  },
  { key: 'label', id: 'import-label', label: 'Label', hint: 'optional' },
  { key: 'expires', id: 'import-expires', label: 'Expires', hint: 'optional · last valid day', type: 'date' },
];

const EMPTY_META: Meta = { text: '', kid: '', alg: '', label: '', expires: '' };

/** The argument of keys.import: empty optional fields are left out. */
export function importInput(m: Meta): MethodInput<'keys.import'> {
  const input: MethodInput<'keys.import'> = { text: m.text };
  if (m.kid.trim() !== '') input.kid = m.kid.trim();
  if (m.alg !== '') input.alg = m.alg;
  if (m.label.trim() !== '') input.label = m.label.trim();
  if (m.expires !== '') input.expires = m.expires;
  return input;
}

/**
 * Import an existing private key (PEM PKCS#8 / PKCS#1, or a private JWK) into the vault. The
 * pasted text lives only in this dialog's state: it is sent once and cleared as soon as the core
 * has it, and nothing ever shows it again.
 */
export function ImportDialog() {
  const close = useKeysStore((s) => s.close);
  const setHighlight = useKeysStore((s) => s.setHighlight);
  const importKey = useImportKey();
  const [imported, setImported] = useState<KeyInfo | null>(null);
  const form = useContractForm({
    initial: EMPTY_META,
    fields: FIELDS,
    toInput: importInput,
    schema: schemas.ImportKeyInput,
    mutation: importKey,
    // An empty key text is "not yet", not an error to shout about.
    notYet: (d) => (d.text === '' ? ['text'] : []),
  });
  const { draft: meta, edit, errorFor } = form;
  const text = meta.text;
  const send = form.submit((key) => {
    form.setDraft(EMPTY_META); // the private key leaves the page as soon as the vault holds it
    setImported(key);
    setHighlight(key.kid);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() !== '') send(e);
  };

  return (
    <Dialog title="Import a private key" onClose={close} testId="import-dialog" wide>
      <form onSubmit={submit} noValidate className="dialog-form">
        <ImportWarning />
        <TextAreaField
          id="import-text"
          label="Private key"
          hint="PEM (PKCS#8 or PKCS#1) or a private JWK (JSON)"
          error={errorFor('text')}
          className="import-text"
          rows={8}
          value={text}
          onChange={(value) => {
            if (imported) setImported(null);
            edit({ text: value });
          }}
          spellCheck={false}
          autoComplete="off"
          autoCorrect="off"
          autoCapitalize="off"
          placeholder={'-----BEGIN …-----\nor {"kty":"RSA","n":"…","e":"AQAB",…}'}
          data-autofocus
        />
        <div className="form-grid-2">
          <DraftFields specs={SPECS} draft={meta} edit={edit} errorFor={errorFor} />
        </div>
        {form.unplaced ? (
          <ErrorPanel title="Not imported" error={form.unplaced} testId="import-error" />
        ) : null}
        {imported ? <ImportedNote imported={imported} /> : null}
        <DialogActions
          small
          onCancel={close}
          cancelTestId="import-cancel"
          cancelLabel={imported ? 'Close' : 'Cancel'}
          confirmLabel={importKey.isPending ? 'Importing…' : 'Import into the vault'}
          confirmTestId="import-submit"
          confirmDisabled={importKey.isPending || text.trim() === '' || !form.valid}
        />
      </form>
    </Dialog>
  );
}

/** What importing means for the key: it is never shown again. */
function ImportWarning() {
  return (
    <div className="banner banner-warn" data-testid="import-warning">
      <span className="banner-icon" aria-hidden="true">
        !
      </span>
      <p>
        <strong>The key goes into the vault and is never shown again</strong>: not on this page, not by Export
        (which gives the public part only). Keep your own backup where your bank keeps keys. The text you
        paste is sent once to this console’s core, encrypted there, and cleared from this form.
      </p>
    </div>
  );
}

/** The imported key's kid, algorithm, size and fingerprint. */
function ImportedNote({ imported }: { imported: KeyInfo }) {
  return (
    <p className="text-pass" role="status" data-testid="import-done">
      ✓ Imported <code>{imported.kid}</code> ({imported.alg}, {imported.bits} bits), fingerprint{' '}
      <code title={imported.fingerprint}>{imported.fingerprint.slice(0, 12)}…</code>. The form is empty again:
      paste another key, or close.
    </p>
  );
}
