/**
 * A labelled monospace textarea wired to its {@link Field} like {@link TextField}: the id the
 * label points at, `aria-invalid` while an error shows, `aria-describedby` on the live note, and
 * the test id. For pasted keys and JWKs.
 */
import type { TextareaHTMLAttributes } from 'react';
import { Field } from '../shared/field';

type AreaAttributes = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'value' | 'onChange'>;

export interface TextAreaFieldProps extends AreaAttributes {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  value: string;
  onChange: (value: string) => void;
}

/**
 * @example
 * <TextAreaField id="onboard-jwk" label="Public JWK" rows={6} value={draft.jwk} onChange={(jwk) => edit({ jwk })} />
 */
export function TextAreaField({
  id,
  label,
  hint,
  error,
  value,
  onChange,
  className,
  ...rest
}: TextAreaFieldProps) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <textarea
        id={id}
        className={['input mono', className].filter(Boolean).join(' ')}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-note`}
        data-testid={id}
        {...rest}
      />
    </Field>
  );
}
