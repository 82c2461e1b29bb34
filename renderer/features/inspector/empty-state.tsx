import { useInspectorStore } from './inspector-store';

export function EmptyState() {
  const loadSample = useInspectorStore((s) => s.loadSample);
  return (
    <div className="empty" data-testid="inspector-empty">
      <h2>Paste a token to inspect it</h2>
      <p>Any compact JWS works:</p>
      <ul>
        <li>
          the bank’s JWT from <code>CX-Authorization</code>
        </li>
        <li>
          the service’s JWT from <code>X-Session-ID</code> on a callback
        </li>
        <li>
          a <code>session_token</code>
        </li>
      </ul>
      <p>
        Each check (structure, alg, kid, signature, exp, iat, nbf, lifetime, units, flow, obj, sub) reports
        passed, failed or skipped, with the reason. Give a key to check the signature, and the expected{' '}
        <code>obj</code>/<code>sub</code> to compare them. The token goes only to this console’s own core.
      </p>
      <button type="button" className="btn btn-primary" onClick={loadSample} data-testid="try-sample">
        Try a sample
      </button>
      <span className="muted empty-note"> an expired demo token, with its public key and claims</span>
    </div>
  );
}
