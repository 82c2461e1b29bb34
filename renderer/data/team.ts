/**
 * The team hub this console is attached to (issue 30 item 2): queries and the attach/detach
 * actions. The member token is handed to `team.attach` once and kept nowhere in the page: no
 * query, no mutation cache (react-query would keep a mutation's variables), no store.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RouteRequest, TeamConnection } from '../../electron/contract/schemas/team';
import { useApi, useLiveEvent } from '../api/client-context';

/** Query keys of the team hub connection. */
export const teamKeys = { connection: ['team', 'connection'] as const };

/** Where this console is attached, as whom, and whether the hub's live events arrive. */
export function useTeamConnection() {
  const api = useApi();
  return useQuery({
    queryKey: teamKeys.connection,
    queryFn: () => api.team.connection(),
    retry: false,
  });
}

/**
 * Keeps the connection current from `team.changed`; when the pages change hands (attached,
 * detached, another hub or member) every query is fetched again from the new source.
 */
export function useTeamLiveUpdates(): void {
  const queryClient = useQueryClient();
  useLiveEvent('team.changed', (next) => {
    const before = queryClient.getQueryData<TeamConnection>(teamKeys.connection);
    queryClient.setQueryData(teamKeys.connection, next);
    const owner = (c: TeamConnection | undefined) =>
      c && c.state !== 'detached' ? `${c.hub_url} ${c.member}` : '';
    if (owner(before) !== owner(next))
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'team' });
  });
}

/**
 * `team.attach` from a form: the token goes to the host and is dropped here (a plain call, not
 * a mutation, so no cache keeps it). `error` is the host's refusal (its `details.field`).
 */
export function useAttach() {
  const api = useApi();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const attach = async (hubUrl: string, token: string): Promise<boolean> => {
    setPending(true);
    setError(null);
    try {
      const connection = await api.team.attach({ hub_url: hubUrl, token });
      queryClient.setQueryData(teamKeys.connection, connection);
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'team' });
      return true;
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      return false;
    } finally {
      setPending(false);
    }
  };
  return { attach, pending, error, reset: () => setError(null) };
}

/** `team.detach`: the pages are this console's again. */
export function useDetach() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.team.detach(),
    onSuccess: (connection) => {
      queryClient.setQueryData(teamKeys.connection, connection);
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'team' });
    },
  });
}

/** Query key of the hub's routes. */
export const routeKeys = { list: ['team', 'routes'] as const };

/**
 * The team hub's routes (issue 30 item 3: "Routes are visible to the team"), kept current by
 * the hub's `team.rerouted` (the whole list each time), not by polling.
 */
export function useRoutes() {
  const api = useApi();
  const queryClient = useQueryClient();
  useLiveEvent('team.rerouted', (routes) => queryClient.setQueryData(routeKeys.list, routes));
  return useQuery({ queryKey: routeKeys.list, queryFn: () => api.team.routes() });
}

/** `team.addRoute` (the page `attach --forward-to` serves); the list follows from the event. */
export function useAddRoute() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (route: RouteRequest) => api.team.addRoute(route),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: routeKeys.list }),
  });
}

/** `team.removeRoute`: anyone's route (operator); its laptop is told. */
export function useRemoveRoute() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.team.removeRoute({ id }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: routeKeys.list }),
  });
}
