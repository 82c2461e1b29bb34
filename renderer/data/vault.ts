/**
 * The vault as server state (STYLE.md 7): its status and the two ways to open it. `vault.changed`
 * events replace the status (app/live-updates.ts); a vault error from any call refreshes it
 * (app/query-client.ts).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { VaultStatus } from '../../electron/contract/schemas/keys';
import { useApi } from '../api/client-context';
import { keysKeys } from './keys';

/** Query keys of the vault. */
export const vaultKeys = {
  all: ['vault'] as const,
  /** vault.status; live `vault.changed` events replace it. */
  status: () => [...vaultKeys.all, 'status'] as const,
};

export function useVaultStatus() {
  const api = useApi();
  return useQuery({ queryKey: vaultKeys.status(), queryFn: () => api.vault.status() });
}

/** A vault that opened: its status replaces the cached one, and the key list (refused while locked) reloads. */
function useOpenVault(open: (passphrase: string) => Promise<VaultStatus>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: open,
    onSuccess: (status: VaultStatus) => {
      queryClient.setQueryData(vaultKeys.status(), status);
      return queryClient.invalidateQueries({ queryKey: keysKeys.all });
    },
  });
}

export function useUnlockVault() {
  const api = useApi();
  return useOpenVault((passphrase) => api.vault.unlock({ passphrase }));
}

export function useCreatePassphraseVault() {
  const api = useApi();
  return useOpenVault((passphrase) => api.vault.createPassphrase({ passphrase }));
}
