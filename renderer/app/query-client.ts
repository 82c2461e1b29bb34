import { QueryCache, QueryClient, MutationCache } from '@tanstack/react-query';
import { ConsoleError, type ErrorCode } from '../../electron/contract';
import { vaultKeys } from '../data/vault';

/** Answers that mean the vault changed state (a keychain gone, a passphrase needed). */
const VAULT_CODES: readonly ErrorCode[] = [
  'KEYCHAIN_UNAVAILABLE',
  'VAULT_LOCKED',
  'VAULT_PASSPHRASE_WRONG',
  'VAULT_DAMAGED',
  'VAULT_KEY_MISSING',
];

/**
 * One QueryClient per page. A ConsoleError is a definite answer from the core (bad input, a
 * refused token…): retrying it only delays the message, so only transport hiccups are retried.
 * A refused access token is not judged here: an UNAUTHORIZED error can be the core's own answer
 * (the sandbox refusing a bank's token), and only the host's HTTP 401 means the page's token is
 * stale; the transport reports that (renderer/api/access-refusal.ts). A vault error from any
 * call (generating a key where no keychain answers…) refreshes the vault status, so the
 * app-wide vault banner says what to do at once.
 */
export function createQueryClient(): QueryClient {
  const onError = (err: unknown) => {
    if (!(err instanceof ConsoleError)) return;
    if (VAULT_CODES.includes(err.code)) void client.invalidateQueries({ queryKey: vaultKeys.status() });
  };
  const client: QueryClient = new QueryClient({
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
  return client;
}
