import { useEventStreamState, useClient } from '../api/client-context';
import type { EventStreamStatus } from '../api/event-stream';

const WORDING: Record<EventStreamStatus, { label: string; title: string }> = {
  connecting: { label: 'connecting…', title: 'Opening the live event stream.' },
  connected: { label: 'live', title: 'Live events are streaming from the console host.' },
  reconnecting: { label: 'reconnecting…', title: 'The live event stream dropped; reconnecting.' },
  disconnected: {
    label: 'disconnected',
    title: 'No live events: the console host is unreachable or refused the stream. Retrying with backoff.',
  },
};

/** Header indicator: which host this page talks to, and whether live events flow. */
export function ConnectionStatus() {
  const { mode } = useClient();
  const state = useEventStreamState();
  const wording = WORDING[state.status];
  return (
    <div className="conn" data-testid="connection-status" data-mode={mode} data-status={state.status}>
      <span
        className="conn-mode"
        title={
          mode === 'desktop' ? 'Desktop app (IPC)' : 'Browser mode: dets-console serve over loopback HTTP'
        }
      >
        {mode === 'desktop' ? 'Desktop' : 'Browser mode'}
      </span>
      <span className={`conn-events conn-${state.status}`} title={wording.title} role="status">
        <span className="conn-dot" aria-hidden="true" />
        events {wording.label}
      </span>
    </div>
  );
}
