/**
 * The service client as server state (STYLE.md 7): the exchange history, authenticate, the JWK
 * operations and rotation. Every call's exchange goes into the history at once; live
 * `service.exchanged` events merge into the same list (app/live-updates.ts).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../electron/contract';
import type { Exchange, Rotation } from '../../electron/contract/schemas/service';
import { useApi } from '../api/client-context';
import { envKeys } from './environments';
import { keysKeys } from './keys';

/** How many exchanges the history keeps on screen (the core keeps more; `service.exchanges` pages them). */
export const EXCHANGE_LIMIT = 100;

/** Query keys of the service client. */
export const serviceKeys = {
  all: ['service'] as const,
  /** service.exchanges, newest first; live `service.exchanged` events are prepended. */
  exchanges: () => [...serviceKeys.all, 'exchanges'] as const,
  /** The last rotation this page saw (a `service.rotate` answer or a `service.rotated` event). */
  rotation: () => [...serviceKeys.all, 'rotation'] as const,
};

/**
 * Newest first, one entry per id: an exchange arrives both live and as a call's result.
 *
 * @example
 * queryClient.setQueryData(serviceKeys.exchanges(), (old) => mergeExchange(old, exchange));
 */
export function mergeExchange(list: Exchange[] | undefined, exchange: Exchange): Exchange[] | undefined {
  if (!list) return list; // not loaded yet: the first fetch brings it
  const rest = list.filter((e) => e.id !== exchange.id);
  return [exchange, ...rest].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, EXCHANGE_LIMIT);
}

export function useExchanges() {
  const api = useApi();
  return useQuery({
    queryKey: serviceKeys.exchanges(),
    queryFn: () => api.service.exchanges({ limit: EXCHANGE_LIMIT }),
  });
}

/** A call's exchange goes into the history at once, live events or not. */
function useAddExchange() {
  const queryClient = useQueryClient();
  return (exchange: Exchange) =>
    queryClient.setQueryData<Exchange[]>(serviceKeys.exchanges(), (old) => mergeExchange(old, exchange));
}

export function useAuthenticate() {
  const api = useApi();
  const add = useAddExchange();
  return useMutation({
    mutationFn: (input: MethodInput<'service.authenticate'>) => api.service.authenticate(input),
    onSuccess: (result) => add(result.exchange),
  });
}

export type JwkOperation =
  | { op: 'register'; input: MethodInput<'service.registerJwk'> }
  | { op: 'update'; input: MethodInput<'service.updateJwk'> }
  | { op: 'list' }
  | { op: 'fetch' };

export function useJwkOperation() {
  const api = useApi();
  const add = useAddExchange();
  return useMutation({
    mutationFn: (o: JwkOperation): Promise<Exchange> => {
      switch (o.op) {
        case 'register':
          return api.service.registerJwk(o.input);
        case 'update':
          return api.service.updateJwk(o.input);
        case 'list':
          return api.service.listJwks();
        case 'fetch':
          return api.service.fetchJwks();
      }
    },
    onSuccess: add,
  });
}

/** The last rotation seen on this page (there is no method to read it back: it comes from a call or an event). */
export function useLastRotation() {
  return useQuery<Rotation | null>({
    queryKey: serviceKeys.rotation(),
    queryFn: () => null,
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

export function useRotate() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'service.rotate'>) => api.service.rotate(input),
    onSuccess: (rotation) => {
      queryClient.setQueryData(serviceKeys.rotation(), rotation);
      void queryClient.invalidateQueries({ queryKey: serviceKeys.exchanges() });
      void queryClient.invalidateQueries({ queryKey: keysKeys.list() });
      return queryClient.invalidateQueries({ queryKey: envKeys.list() });
    },
  });
}
