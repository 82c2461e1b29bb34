import type { ReactNode } from 'react';

/**
 * A row of radio buttons that reads as one control (`role="radiogroup"`). Each option's input has
 * `data-testid="${testIdPrefix}${value}"`; with `autoFocusChecked` the checked one takes the
 * dialog's first focus.
 */
export function Segmented<V extends string>({
  label,
  name,
  options,
  value,
  onChange,
  testIdPrefix = `${name}-`,
  autoFocusChecked = false,
  inline = false,
}: {
  /** The group's aria-label. */
  label: string;
  name: string;
  options: ReadonlyArray<{ value: V; label: ReactNode }>;
  value: V;
  onChange: (value: V) => void;
  /** Before each option's value in its test id; `${name}-` unless told. */
  testIdPrefix?: string;
  autoFocusChecked?: boolean;
  /** A `<span>` rather than a `<div>`, for a group inside a heading. */
  inline?: boolean;
}) {
  const Group = inline ? 'span' : 'div';
  return (
    <Group className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <label key={o.value} className="segmented-option">
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={value === o.value}
            onChange={() => onChange(o.value)}
            data-testid={`${testIdPrefix}${o.value}`}
            data-autofocus={autoFocusChecked && value === o.value ? true : undefined}
          />
          <span>{o.label}</span>
        </label>
      ))}
    </Group>
  );
}
