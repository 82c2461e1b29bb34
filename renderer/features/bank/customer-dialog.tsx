import { useState } from 'react';
import type { z } from 'zod';
import type { CustomerView } from '../../../electron/contract/schemas/bank';
import { DialogActions } from '../../shared/dialog-actions';
import { Field } from '../../shared/field';
import { fieldOfError } from '../../shared/field-errors';
import { Dialog } from '../../ui/dialog';
import {
  CUSTOMER_FIELDS,
  EMPTY_CUSTOMER,
  EXTERNAL_ID_MAX,
  symbols,
  toCustomer,
  validateCustomer,
  type CustomerField,
  type CustomerValues,
} from './customer-form';
import { useSaveCustomer } from '../../data/bank';

type View = z.output<typeof CustomerView>;

const LABELS: Record<CustomerField, { label: string; hint?: string; required?: boolean }> = {
  obj: { label: 'obj', hint: 'account or phone the service sends as obj', required: true },
  sub: { label: 'sub', hint: 'optional: checked against the token when set' },
  external_id: { label: 'external_id', hint: `≤ ${EXTERNAL_ID_MAX} symbols`, required: true },
  phone: { label: 'phone', required: true },
  key: { label: 'key', hint: 'the user’s secret key (spec 2.5); never shown again', required: true },
  first_name: { label: 'first_name' },
  last_name: { label: 'last_name' },
  email: { label: 'email' },
};

function fromView(c: View): CustomerValues {
  return {
    ...EMPTY_CUSTOMER,
    obj: c.obj,
    sub: c.sub ?? '',
    external_id: c.external_id,
    phone: c.phone,
    first_name: c.first_name ?? '',
    last_name: c.last_name ?? '',
    email: c.email ?? '',
  };
}

/** Add or edit a test customer; errors show as you type, the core's refusals under their field. */
export function CustomerDialog({ editing, onClose }: { editing: View | null; onClose: () => void }) {
  const [values, setValues] = useState<CustomerValues>(() => (editing ? fromView(editing) : EMPTY_CUSTOMER));
  const [touched, setTouched] = useState<Partial<Record<CustomerField, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const save = useSaveCustomer();
  const problems = validateCustomer(values);
  const refused = save.error ? fieldOfError(save.error, CUSTOMER_FIELDS) : null;
  const errorOf = (f: CustomerField) =>
    (touched[f] || submitted ? problems[f] : undefined) ??
    (refused?.field === f ? refused.message : undefined);

  const set = (f: CustomerField, v: string) => {
    setValues((old) => ({ ...old, [f]: v }));
    setTouched((old) => ({ ...old, [f]: true }));
    if (save.error) save.reset();
  };
  const submit = () => {
    setSubmitted(true);
    if (Object.keys(problems).length > 0) return;
    save.mutate(toCustomer(values), { onSuccess: onClose });
  };

  return (
    <Dialog
      title={editing ? `Edit customer ${editing.obj}` : 'Add a test customer'}
      onClose={onClose}
      testId="customer-dialog"
    >
      <form
        className="customer-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        noValidate
      >
        <div className="customer-form-grid">
          {CUSTOMER_FIELDS.map((f) => {
            const meta = LABELS[f];
            const id = `customer-${f.replace('_', '-')}`;
            return (
              <Field
                key={f}
                id={id}
                label={`${meta.label}${meta.required ? ' *' : ''}`}
                hint={meta.hint}
                error={errorOf(f)}
                note={
                  f === 'external_id' && values.external_id
                    ? `${symbols(values.external_id)} / ${EXTERNAL_ID_MAX}`
                    : undefined
                }
              >
                <input
                  id={id}
                  className="input"
                  type={f === 'key' ? 'password' : 'text'}
                  autoComplete="off"
                  spellCheck={false}
                  value={values[f]}
                  readOnly={f === 'obj' && editing !== null}
                  onChange={(e) => set(f, e.target.value)}
                  onBlur={() => setTouched((old) => ({ ...old, [f]: true }))}
                  aria-invalid={errorOf(f) ? true : undefined}
                  aria-describedby={`${id}-note`}
                  data-testid={id}
                  {...(f === 'obj' && !editing ? { 'data-autofocus': true } : {})}
                  {...(f === 'key' && editing ? { 'data-autofocus': true } : {})}
                />
              </Field>
            );
          })}
        </div>
        {refused && refused.field === null ? (
          <p className="field-error" data-testid="customer-save-error">
            {refused.message}
          </p>
        ) : null}
        <DialogActions
          onCancel={onClose}
          cancelTestId="customer-cancel"
          confirmLabel={save.isPending ? 'Saving…' : 'Save customer'}
          confirmTestId="customer-save"
          confirmDisabled={save.isPending}
        />
      </form>
    </Dialog>
  );
}
