import type { ReactNode } from 'react';

/**
 * A labelled form field: label and hint above, the control, then a live note for its error (the
 * control points at `${id}-note` with aria-describedby). Errors carry `data-testid="${id}-error"`.
 */
export function Field({
  id,
  label,
  hint,
  error,
  note,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  /** Shown under the control when there is no error (a derived value, a reminder). */
  note?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <div className="field-head">
        <label htmlFor={id} className="field-label">
          {label}
        </label>
        {hint ? <span className="field-hint">{hint}</span> : null}
      </div>
      {children}
      <p className="field-note" id={`${id}-note`} aria-live="polite">
        {error ? (
          <span className="field-error" data-testid={`${id}-error`}>
            {error}
          </span>
        ) : note ? (
          <span className="muted">{note}</span>
        ) : null}
      </p>
    </div>
  );
}
