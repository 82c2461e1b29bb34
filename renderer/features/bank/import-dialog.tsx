import { useState } from 'react';
import { DialogActions } from '../../shared/dialog-actions';
import { Dialog } from '../../ui/dialog';
import { useImportCustomers } from '../../data/bank';

/** Replace the customers with a --users file: pick it or paste it; the core validates it whole first. */
export function ImportCustomersDialog({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const imp = useImportCustomers();
  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setText(await file.text());
    imp.reset();
  };
  return (
    <Dialog title="Import customers (--users file)" onClose={onClose} testId="customers-import-dialog" wide>
      <p className="muted">
        A JSON array of <code>{'{obj, sub?, external_id, phone, key, first_name?, last_name?, email?}'}</code>
        . It replaces every current customer, and nothing changes if any entry is refused.
      </p>
      <input
        type="file"
        accept=".json,application/json"
        onChange={(e) => void readFile(e.target.files?.[0])}
        data-testid="customers-import-file"
        aria-label="--users file"
      />
      <textarea
        className="input customers-import-text"
        rows={10}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          imp.reset();
        }}
        placeholder='[{"obj": "DE89370400440532013000", "external_id": "c-1", "phone": "+4915112345678", "key": "…"}]'
        spellCheck={false}
        data-testid="customers-import-text"
        aria-label="Paste the file"
      />
      {imp.error ? (
        <p className="field-error" data-testid="customers-import-error">
          {imp.error instanceof Error ? imp.error.message : String(imp.error)}
        </p>
      ) : null}
      <DialogActions
        onCancel={onClose}
        confirmLabel={imp.isPending ? 'Importing…' : 'Replace customers'}
        confirmTestId="customers-import-submit"
        confirmDisabled={!text.trim() || imp.isPending}
        onConfirm={() => imp.mutate(text, { onSuccess: onClose })}
      />
    </Dialog>
  );
}
