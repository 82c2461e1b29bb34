import { useState } from 'react';
import type { HostKeyOffer } from '../../../electron/contract/schemas/tunnel';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { Dialog } from '../../ui/dialog';
import { useTrustHostKey, useUnpinHostKey } from '../../data/tunnel';
import { useMayCall } from '../../data/app';
import { Allowed } from '../../shared/allowed';

/**
 * A host key the ssh tunnel stopped on (issue 26 item 4). Unknown: a dialog shows the SHA256
 * fingerprint (as `ssh-keygen -lf` prints it) for the engineer to compare with the host's owner;
 * "Trust and connect" pins exactly that key and the tunnel starts again. Changed: refused loudly
 * with the old and the new fingerprints, and Unpin (after which the new key is asked about as
 * an unknown one).
 */
export function HostKeyPanel({ offer }: { offer: HostKeyOffer }) {
  const [dismissed, setDismissed] = useState<string | null>(null);
  const trust = useTrustHostKey();
  const unpin = useUnpinHostKey();
  // Pinning and unpinning are an admin's on a hub (team-roles.ts): anyone else is told, not asked.
  const mayPin = useMayCall('tunnel.trustHostKey');
  const key = `${offer.host} ${offer.keys.map((k) => k.fingerprint).join(',')}`;
  if (offer.state === 'changed') {
    return (
      <div
        className="field-note field-error host-key-changed"
        role="alert"
        data-testid="bank-host-key-changed"
      >
        <p>
          <strong>The host key of {offer.host} CHANGED.</strong> This may be an attack (someone between you
          and the host), or the host was reinstalled. The tunnel was refused.
        </p>
        <p>
          Pinned before: <FingerprintList keys={offer.pinned} testId="bank-host-key-old" />
        </p>
        <p>
          Shown now: <FingerprintList keys={offer.keys} testId="bank-host-key-new" />
        </p>
        <p className="muted">
          Ask the host&apos;s owner for its fingerprint. Only if it matches the new one, unpin the old key (it
          is removed from {offer.file}); you are then asked to confirm the new one.
        </p>
        {unpin.error ? (
          <ErrorPanel title="Not unpinned" error={unpin.error} testId="bank-host-key-unpin-error" />
        ) : null}
        <Allowed method="tunnel.unpinHostKey">
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={unpin.isPending}
            onClick={() => unpin.mutate(offer.host)}
            data-testid="bank-host-key-unpin"
          >
            Unpin the old key of {offer.host}
          </button>
        </Allowed>
      </div>
    );
  }
  if (!mayPin) {
    return (
      <div className="field-note" data-testid="bank-host-key-admin">
        The host key of {offer.host} is not confirmed: an admin of this hub compares it with the host&apos;s
        owner and trusts it. <FingerprintList keys={offer.keys} testId="host-key-fingerprint" />
      </div>
    );
  }
  if (dismissed === key) {
    return (
      <p className="field-note" data-testid="bank-host-key-later">
        The host key of {offer.host} is not confirmed.{' '}
        <button type="button" className="btn btn-link" onClick={() => setDismissed(null)}>
          Review it
        </button>
      </p>
    );
  }
  const fingerprint = offer.keys[0]?.fingerprint;
  return (
    <Dialog
      title={`Confirm the host key of ${offer.host}`}
      onClose={() => setDismissed(key)}
      testId="host-key-dialog"
    >
      <p>
        This console has not connected to <strong>{offer.host}</strong> before. It shows this key:
      </p>
      <FingerprintList keys={offer.keys} testId="host-key-fingerprint" />
      <p className="muted">
        Compare it with what the host&apos;s owner reads on the host (
        <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code>). If it matches, trust it: it is pinned
        in <code>{offer.file}</code> and every later connection must show the same key.
      </p>
      {trust.error ? <ErrorPanel title="Not pinned" error={trust.error} testId="host-key-error" /> : null}
      <DialogActions
        onCancel={() => setDismissed(key)}
        cancelLabel="Not now"
        cancelTestId="host-key-cancel"
        cancelAutoFocus
        confirmLabel={trust.isPending ? 'Connecting…' : 'Trust and connect'}
        confirmTestId="host-key-trust"
        confirmDisabled={trust.isPending || !fingerprint}
        onConfirm={() => fingerprint && trust.mutate({ host: offer.host, fingerprint })}
      />
    </Dialog>
  );
}

function FingerprintList({ keys, testId }: { keys: HostKeyOffer['keys']; testId: string }) {
  return (
    <ul className="host-key-list" data-testid={testId}>
      {keys.map((k) => (
        <li key={k.fingerprint}>
          <code>{k.line}</code>
        </li>
      ))}
    </ul>
  );
}
