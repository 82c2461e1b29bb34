import { schemas, type MethodInput } from '../../../electron/contract';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { Dialog } from '../../ui/dialog';
import { useContractForm } from '../../ui/use-contract-form';
import { Options } from '../../shared/options';
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
          <Field id="gen-alg" label="Algorithm" hint="RS256 in every example of the guide">
            <select
              id="gen-alg"
              className="input"
              value={draft.alg}
              onChange={(e) => edit({ alg: e.target.value as Draft['alg'] })}
              data-testid="gen-alg"
            >
              <Options values={ALGS} />
            </select>
          </Field>
          <Field id="gen-bits" label="Key size" hint="bits">
            <select
              id="gen-bits"
              className="input"
              value={draft.bits}
              onChange={(e) => edit({ bits: Number(e.target.value) as Draft['bits'] })}
              data-testid="gen-bits"
            >
              <Options values={BITS} />
            </select>
          </Field>
          <Field id="gen-kid" label="kid" hint="optional · empty: a new UUID" error={errorFor('kid')}>
            <input
              id="gen-kid"
              className="input mono"
              value={draft.kid}
              placeholder="e.g. bank-2025-06 or 54321"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => edit({ kid: e.target.value })}
              aria-invalid={errorFor('kid') ? true : undefined}
              aria-describedby="gen-kid-note"
              data-testid="gen-kid"
              data-autofocus
            />
          </Field>
          <Field id="gen-label" label="Label" hint="optional · for people" error={errorFor('label')}>
            <input
              id="gen-label"
              className="input"
              value={draft.label}
              placeholder="e.g. Production signing 2025"
              onChange={(e) => edit({ label: e.target.value })}
              aria-describedby="gen-label-note"
              data-testid="gen-label"
            />
          </Field>
          <Field
            id="gen-expires"
            label="Expires"
            hint="optional · last valid day"
            error={errorFor('expires')}
            note="The header warns 30 days before; rotate in time."
          >
            <input
              id="gen-expires"
              type="date"
              className="input"
              value={draft.expires}
              onChange={(e) => edit({ expires: e.target.value })}
              aria-invalid={errorFor('expires') ? true : undefined}
              aria-describedby="gen-expires-note"
              data-testid="gen-expires"
            />
          </Field>
          <Field
            id="gen-counterparty"
            label="Counterparty GUID"
            hint="optional · which registration it belongs to"
            error={errorFor('counterparty_guid')}
          >
            <input
              id="gen-counterparty"
              className="input mono"
              value={draft.counterparty_guid}
              placeholder="00000000-0000-0000-0000-000000000000"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => edit({ counterparty_guid: e.target.value })}
              aria-invalid={errorFor('counterparty_guid') ? true : undefined}
              aria-describedby="gen-counterparty-note"
              data-testid="gen-counterparty"
            />
          </Field>
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
