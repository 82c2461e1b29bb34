/**
 * A checkbox with its label beside it (`.toggle`): the on/off filters of the list pages.
 */
import type { ReactNode } from 'react';

/**
 * @example
 * <Toggle checked={failedOnly} onChange={setFailedOnly} testId="callbacks-failed-only">Failed only</Toggle>
 */
export function Toggle({
  checked,
  onChange,
  testId,
  className = 'toggle',
  children,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId: string;
  /** The label's class: `toggle` unless told. */
  className?: string;
  children: ReactNode;
}) {
  return (
    <label className={className}>
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        data-testid={testId}
      />
      {children}
    </label>
  );
}
