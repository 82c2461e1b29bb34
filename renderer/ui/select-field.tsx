/**
 * A labelled `<select>` over a list of values: {@link Field} around the select, with an optional
 * first "empty" choice (a default the core picks, or "all"). Dialogs repeated this for every
 * algorithm, size and kind.
 */
import type { ReactNode } from 'react';
import { Field } from '../shared/field';
import { Options } from '../shared/options';

export interface SelectFieldProps<V extends string | number> {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  note?: ReactNode;
  value: V | '';
  values: readonly V[];
  /** The selected option's value, as the select gives it (a string). */
  onChange: (value: string) => void;
  /** The label of a first option with the value "" (none when not given). */
  empty?: string;
  className?: string;
  /** `data-testid`; the id when not given. */
  testId?: string;
}

/**
 * @example
 * <SelectField id="gen-alg" label="Algorithm" value={alg} values={ALGS} onChange={(a) => edit({ alg: a as Alg })} />
 */
export function SelectField<V extends string | number>(props: SelectFieldProps<V>) {
  const { id, value, values, onChange, empty, className = 'input' } = props;
  return (
    <Field id={id} label={props.label} hint={props.hint} error={props.error} note={props.note}>
      <select
        id={id}
        className={className}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        data-testid={props.testId ?? id}
      >
        {empty !== undefined ? <option value="">{empty}</option> : null}
        <Options values={values} />
      </select>
    </Field>
  );
}
