import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useLiveEvent } from '../api/client-context';
import { appKeys } from './query-keys';

/**
 * Header pill (issue 12): the event store cannot write (a full disk, an I/O error: notifications
 * get 500 until it recovers by itself) or its database is damaged. Nothing shows while it is
 * sound; store.changed keeps it current.
 */
export function StoreHealthPill() {
  const api = useApi();
  const queryClient = useQueryClient();
  useLiveEvent('store.changed', (health) => queryClient.setQueryData(appKeys.storeHealth(), health));
  const health = useQuery({ queryKey: appKeys.storeHealth(), queryFn: () => api.events.health() }).data;
  if (!health || health.state === 'ok') return null;
  const failing = health.state === 'failing';
  return (
    <span
      className="behaviours-pill"
      role="status"
      data-testid="store-health-pill"
      title={
        failing
          ? `Events cannot be written to ${health.file} since ${health.since}: ${health.detail ?? ''}. Notifications are answered 500 until writing works again; nothing acknowledged is lost.`
          : `${health.file} is damaged (${health.detail ?? ''}). What can be read is shown; run \`dets-console store recover\` with the console stopped.`
      }
    >
      <span aria-hidden="true">!</span> {failing ? 'storage failing' : 'database damaged'}
    </span>
  );
}
