import { useTunnelStatus } from '../../data/tunnel';

const WORDING = {
  starting: 'tunnel starting…',
  up: 'tunnel up',
  down: 'tunnel down, retrying',
  failed: 'tunnel failed',
  stopped: 'tunnel stopped',
} as const;

/** Header pill: the tunnel's state while there is one (issue 14: each drop and return shows here). */
export function TunnelPill() {
  const t = useTunnelStatus().data?.tunnel;
  if (!t || t.state === 'stopped') return null;
  const title =
    t.state === 'up'
      ? `${t.client} tunnel up since ${t.since}: ${t.url ?? ''}`
      : `${t.client} tunnel ${t.state}${t.last_error ? `: ${t.last_error}` : ''}${t.next_retry_at ? ` (next attempt ${t.next_retry_at})` : ''}`;
  return (
    <a
      href="#/bank"
      className={`tunnel-pill tunnel-${t.state}`}
      data-testid="tunnel-pill"
      data-state={t.state}
      title={title}
    >
      <span className="conn-dot" aria-hidden="true" /> {WORDING[t.state]} ({t.client})
    </a>
  );
}
