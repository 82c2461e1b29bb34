import { useQueryClient } from '@tanstack/react-query';
import type { Exchange } from '../../electron/contract/schemas/service';
import { useLiveEvent } from '../api/client-context';
import { bankKeys } from '../data/bank';
import { useEscalationLiveUpdates } from '../data/deliveries';
import { envKeys } from '../data/environments';
import { keysKeys } from '../data/keys';
import { mergeExchange, serviceKeys } from '../data/service';
import { vaultKeys } from '../data/vault';

/**
 * Live events that feed app-wide server state (the header and the vault banner read it on every
 * page): each event carries the new state, so it replaces the cache instead of refetching.
 */
export function useAppLiveUpdates(): void {
  const queryClient = useQueryClient();
  // The header's escalation indicator (issue 27 item 3).
  useEscalationLiveUpdates();
  useLiveEvent('vault.changed', (status) => {
    queryClient.setQueryData(vaultKeys.status(), status);
    void queryClient.invalidateQueries({ queryKey: keysKeys.list() });
  });
  useLiveEvent('keys.changed', (keys) => {
    queryClient.setQueryData(keysKeys.list(), keys);
    // A kid can come back with another key (deleted, then imported again): exports follow.
    void queryClient.invalidateQueries({ queryKey: keysKeys.exports() });
  });
  useLiveEvent('env.changed', (list) => {
    queryClient.setQueryData(envKeys.list(), list);
    // The tunnel status carries the active environment's ssh settings (issue 26 item 4).
    void queryClient.invalidateQueries({ queryKey: bankKeys.tunnel() });
  });
  useLiveEvent('service.exchanged', (exchange) =>
    queryClient.setQueryData<Exchange[]>(serviceKeys.exchanges(), (old) => mergeExchange(old, exchange)),
  );
  // The header's behaviours pill reads the bank status on every page.
  useLiveEvent('bank.changed', (status) => {
    queryClient.setQueryData(bankKeys.status(), status);
    void queryClient.invalidateQueries({ queryKey: bankKeys.customers() });
  });
  // The header's tunnel pill: each drop and return (issue 14).
  useLiveEvent('tunnel.changed', (status) => queryClient.setQueryData(bankKeys.tunnel(), status));
  useLiveEvent('service.rotated', (rotation) => {
    queryClient.setQueryData(serviceKeys.rotation(), rotation);
    void queryClient.invalidateQueries({ queryKey: keysKeys.list() });
    void queryClient.invalidateQueries({ queryKey: envKeys.list() });
  });
}
