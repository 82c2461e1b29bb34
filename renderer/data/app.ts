/**
 * The app shell's server state (STYLE.md 7): the host's info, the notices the core pushes, and
 * the event store's health. Each hook that a live event feeds listens to it itself, so whoever
 * shows the data gets it current.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { mayCall, type EventPayload, type MethodName } from '../../electron/contract';
import { useApi, useLiveEvent } from '../api/client-context';

/** Query keys of the app shell. */
export const appKeys = {
  all: ['app'] as const,
  info: () => [...appKeys.all, 'info'] as const,
  /** Notices pushed by the core over the live event stream (app.noticed), newest last. */
  notices: () => [...appKeys.all, 'notices'] as const,
  /** The event store's health (events.health, pushed by store.changed). */
  storeHealth: () => [...appKeys.all, 'store-health'] as const,
};

/** The host's name, version and profile folder; they do not change while the page is open. */
export function useAppInfo() {
  const api = useApi();
  return useQuery({ queryKey: appKeys.info(), queryFn: () => api.app.info(), staleTime: Infinity });
}

/** How many notices the status bar remembers (only the last one shows). */
const MAX_NOTICES = 50;

export type Notice = EventPayload<'app.noticed'>;

/** The notices pushed since the page opened, newest last (there is no method to read them back). */
export function useNotices(): Notice[] {
  const queryClient = useQueryClient();
  useLiveEvent('app.noticed', (notice) => {
    queryClient.setQueryData<Notice[]>(appKeys.notices(), (old = []) => [...old, notice].slice(-MAX_NOTICES));
  });
  return (
    useQuery({
      queryKey: appKeys.notices(),
      queryFn: () => [] as Notice[],
      staleTime: Infinity,
      gcTime: Infinity,
    }).data ?? []
  );
}

/** The event store's health, kept current by `store.changed` (issue 12). */
export function useStoreHealth() {
  const api = useApi();
  const queryClient = useQueryClient();
  useLiveEvent('store.changed', (health) => queryClient.setQueryData(appKeys.storeHealth(), health));
  return useQuery({ queryKey: appKeys.storeHealth(), queryFn: () => api.events.health() });
}

/** events.requestRecovery: the damaged database is recovered at the next start. */
export function useRequestRecovery() {
  const api = useApi();
  return useMutation({ mutationFn: () => api.events.requestRecovery() });
}

/**
 * Who this page speaks for (issue 30): on an attached or team hub page, the hub, the member and
 * their role; elsewhere no hub and every action allowed. It does not change while the page is open.
 */
export function useTeamSession() {
  const api = useApi();
  return useQuery({
    queryKey: [...appKeys.all, 'team-session'] as const,
    queryFn: () => api.team.session(),
    staleTime: Infinity,
  });
}

/**
 * Whether this page's member may call `method` (contract team-roles.ts, the table the hub itself
 * applies): the pages hide what the role may not do. True until the session is known and outside
 * a hub; the hub refuses a call its role may not make whatever a page shows.
 */
export function useMayCall(method: MethodName): boolean {
  const session = useTeamSession();
  return session.data ? mayCall(session.data.role, method) : true;
}
