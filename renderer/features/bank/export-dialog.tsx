import { useState } from 'react';
import { useClient } from '../../api/client-context';
import { ErrorPanel } from '../../shared/error-panel';
import { Dialog } from '../../ui/dialog';
import { useExportCustomers, useExportCustomersWithKeys } from '../../data/bank';
import { Allowed } from '../../shared/allowed';

/**
 * Exporting the customers (issue 13 item 7). Without their secret keys by default; with them only
 * after an explicit confirmation, and then as a one-time download the host serves straight to
 * the browser's save flow, so the keys never pass through an answer this page reads.
 */
export function ExportCustomersDialog({ onClose }: { onClose: () => void }) {
  const { mode } = useClient();
  const plain = useExportCustomers();
  const withKeys = useExportCustomersWithKeys();
  const [understood, setUnderstood] = useState(false);
  return (
    <Dialog title="Export customers (--users file)" onClose={onClose} testId="customers-export-dialog">
      <p>
        Without secret keys the file shows who the customers are, but <code>--users</code> and Import need a{' '}
        <code>key</code> for each.
      </p>
      <div className="form-actions">
        <button
          type="button"
          className="btn"
          onClick={() => plain.mutate(undefined, { onSuccess: onClose })}
          disabled={plain.isPending}
          data-testid="customers-export-plain"
          data-autofocus
        >
          Export without secret keys
        </button>
      </div>
      <hr className="export-divider" />
      <label className="toggle">
        <input
          type="checkbox"
          checked={understood}
          onChange={(e) => setUnderstood(e.target.checked)}
          data-testid="customers-export-confirm"
        />{' '}
        I understand the file holds every customer’s secret key in clear text.
      </label>
      {mode === 'desktop' ? (
        <p className="muted" data-testid="customers-export-desktop">
          In the desktop app, export with keys from the command line: <code>dets-console serve</code> then
          this dialog in the browser.
        </p>
      ) : null}
      <Allowed method="bank.exportCustomersWithKeys">
        <div className="form-actions">
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => withKeys.mutate(undefined, { onSuccess: onClose })}
            disabled={!understood || withKeys.isPending || mode === 'desktop'}
            data-testid="customers-export-with-keys"
          >
            Export with secret keys
          </button>
        </div>
      </Allowed>
      {plain.error ? (
        <ErrorPanel title="Export failed" error={plain.error} testId="customers-export-error" />
      ) : null}
      {withKeys.error ? (
        <ErrorPanel title="Export failed" error={withKeys.error} testId="customers-export-keys-error" />
      ) : null}
    </Dialog>
  );
}
