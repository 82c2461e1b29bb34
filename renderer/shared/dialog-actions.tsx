import type { ReactNode } from 'react';

/**
 * A dialog's (or an inline form's) closing row: Cancel, then the button that does the thing
 * (primary, or danger for what cannot be undone); `confirmFirst` puts that button first, as inline
 * forms do. Without `onConfirm` the confirm button submits the form.
 */
export function DialogActions({
  onCancel,
  cancelTestId,
  cancelLabel = 'Cancel',
  cancelAutoFocus = false,
  confirmLabel,
  confirmTestId,
  confirmDisabled,
  onConfirm,
  danger = false,
  small = false,
  confirmFirst = false,
}: {
  onCancel: () => void;
  cancelTestId?: string;
  cancelLabel?: ReactNode;
  /** Focus Cancel when the dialog opens (a confirmation whose safe answer is no). */
  cancelAutoFocus?: boolean;
  confirmLabel: ReactNode;
  confirmTestId: string;
  confirmDisabled?: boolean;
  onConfirm?: () => void;
  danger?: boolean;
  small?: boolean;
  confirmFirst?: boolean;
}) {
  const size = small ? 'btn btn-small' : 'btn';
  const cancel = (
    <button
      type="button"
      className={size}
      onClick={onCancel}
      data-testid={cancelTestId}
      data-autofocus={cancelAutoFocus || undefined}
    >
      {cancelLabel}
    </button>
  );
  const confirm = (
    <button
      type={onConfirm ? 'button' : 'submit'}
      className={`${size} ${danger ? 'btn-danger' : 'btn-primary'}`}
      disabled={confirmDisabled}
      onClick={onConfirm}
      data-testid={confirmTestId}
    >
      {confirmLabel}
    </button>
  );
  return (
    <div className="form-actions">
      {confirmFirst ? confirm : cancel}
      {confirmFirst ? cancel : confirm}
    </div>
  );
}
