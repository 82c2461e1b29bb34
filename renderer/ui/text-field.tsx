/**
 * A text input wired to its {@link Field}: the `id` the label points at, `aria-invalid` while
 * the field shows an error, `aria-describedby` on the field's live note, and the test id (the
 * id itself unless told). Every form repeated these five attributes on each input.
 */
import type { InputHTMLAttributes, ReactNode } from 'react';
import { Field } from '../shared/field';

type InputAttributes = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>;

export interface TextInputProps extends InputAttributes {
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** The error shown in the field's note (marks the input invalid). */
  error?: string | undefined;
  /** Monospace, for identifiers, URLs and numbers. */
  mono?: boolean;
  /** `data-testid`; the id when not given. */
  testId?: string;
}

/**
 * The input alone, for a field whose control sits in a row with buttons.
 *
 * @example
 * <TextInput id="composer-iat" value={iat} onChange={setIat} error={errorFor('iat')} mono />
 */
export function TextInput({ id, value, onChange, error, mono, testId, className, ...rest }: TextInputProps) {
  return (
    <input
      id={id}
      className={['input', mono ? 'mono' : null, className].filter(Boolean).join(' ')}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-invalid={error ? true : undefined}
      aria-describedby={`${id}-note`}
      data-testid={testId ?? id}
      {...rest}
    />
  );
}

export interface TextFieldProps extends TextInputProps {
  label: string;
  hint?: string;
  /** Shown under the input when there is no error. */
  note?: ReactNode;
}

/**
 * A labelled text field: {@link Field} around a {@link TextInput}.
 *
 * @example
 * <TextField id="composer-sub" label="sub" value={sub} onChange={(sub) => edit({ sub })} error={errorFor('sub')} mono />
 */
export function TextField({ label, hint, note, ...input }: TextFieldProps) {
  return (
    <Field id={input.id} label={label} hint={hint} error={input.error} note={note}>
      <TextInput {...input} />
    </Field>
  );
}
