/**
 * A form's fields as a table: each row names the draft key it edits and the TextField or
 * SelectField props it shows; the value, the change handler and the error come from the draft,
 * so the dialogs stop repeating `value={draft.x} onChange={(x) => edit({ x })} error={errorFor('x')}`
 * for every field (one rule, one place: how a field is wired to its draft).
 */
import { SelectField, type SelectFieldProps } from './select-field';
import { TextField, type TextFieldProps } from './text-field';

type Key<D> = keyof D & string;

/** A text field editing `draft[key]` (a string); `autofocus` marks it `data-autofocus` (see Dialog). */
export type TextSpec<D> = { key: Key<D>; values?: undefined; autofocus?: boolean } & Omit<
  TextFieldProps,
  'value' | 'onChange' | 'error'
>;

/** A select editing `draft[key]`; `parse` turns the chosen string into the draft's type (a number). */
export type SelectSpec<D> = { key: Key<D>; parse?: (value: string) => unknown } & Omit<
  SelectFieldProps<string | number>,
  'value' | 'onChange' | 'error'
>;

export type FieldSpec<D> = TextSpec<D> | SelectSpec<D>;

export interface DraftFieldsProps<D> {
  specs: readonly FieldSpec<D>[];
  draft: D;
  edit: (patch: Partial<D>) => void;
  /** The message under a field (a method, so a form's narrower `errorFor` fits). */
  errorFor?(field: Key<D>): string | undefined;
}

/**
 * @example
 * <DraftFields specs={[{ key: 'kid', id: 'gen-kid', label: 'kid', mono: true }]} {...form} />
 */
export function DraftFields<D>({ specs, draft, edit, errorFor }: DraftFieldsProps<D>) {
  return (
    <>
      {specs.map((spec) => {
        const set = (value: unknown) => edit({ [spec.key]: value } as Partial<D>);
        const error = errorFor?.(spec.key);
        const value = draft[spec.key] as string | number;
        if (spec.values === undefined) {
          const { key, autofocus, ...props } = spec;
          const first = autofocus ? { 'data-autofocus': true } : {};
          return (
            <TextField key={key} {...props} {...first} value={String(value)} error={error} onChange={set} />
          );
        }
        const { key, parse, ...props } = spec;
        const onChange = (v: string) => set(parse ? parse(v) : v);
        return <SelectField key={key} {...props} value={value} error={error} onChange={onChange} />;
      })}
    </>
  );
}
