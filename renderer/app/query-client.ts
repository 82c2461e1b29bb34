import { QueryCache, QueryClient, MutationCache } from '@tanstack/react-query';
import { ConsoleError } from '../../electron/contract';
import { useSessionStore } from './session-store';

/**
 * One QueryClient per page. A ConsoleError is a definite answer from the core (bad input, a
 * refused token…): retrying it only delays the message, so only transport hiccups are retried.
 * An UNAUTHORIZED answer anywhere means the access token is gone or stale (the host restarted):
 * the whole app switches to the "open the URL printed by serve" page.
 */
export function createQueryClient(): QueryClient {
  const onError = (err: unknown) => {
    if (err instanceof ConsoleError && err.code === 'UNAUTHORIZED')
      useSessionStore.getState().rejectAccess(err.message);
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        retry: (count, err) => !(err instanceof ConsoleError) && count < 2,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
