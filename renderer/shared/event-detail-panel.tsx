import { ErrorPanel } from './error-panel';
import { EventDetailView } from './event-detail';
import { useEventDetail, useListenerUrl } from '../data/events';

/** The one detail view for a stored event, read by id with events.get (notifications, exchanges, traces). */
export function EventDetailPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const detail = useEventDetail(id);
  const listenerUrl = useListenerUrl(detail.data);
  if (detail.error) return <ErrorPanel title="Event unavailable" error={detail.error} testId="event-error" />;
  if (!detail.data) return <p className="muted">Loading the event…</p>;
  return <EventDetailView detail={detail.data} listenerUrl={listenerUrl} onClose={onClose} />;
}
