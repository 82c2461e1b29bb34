import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { VaultStatus } from '../../../electron/contract/schemas/keys';
import { useApi } from '../../api/client-context';
import { keysKeys } from '../keys/query-keys';
import { vaultKeys } from './query-keys';

export function useVaultStatus() {
  const api = useApi();
  return useQuery({ queryKey: vaultKeys.status(), queryFn: () => api.vault.status() });
}

/** A vault that opened: its status replaces the cached one, and the key list (refused while locked) reloads. */
function useOnOpened() {
  const queryClient = useQueryClient();
  return (status: VaultStatus) => {
    queryClient.setQueryData(vaultKeys.status(), status);
    return queryClient.invalidateQueries({ queryKey: keysKeys.all });
  };
}

export function useUnlockVault() {
  const api = useApi();
  const onOpened = useOnOpened();
  return useMutation({
    mutationFn: (passphrase: string) => api.vault.unlock({ passphrase }),
    onSuccess: onOpened,
  });
}

export function useCreatePassphraseVault() {
  const api = useApi();
  const onOpened = useOnOpened();
  return useMutation({
    mutationFn: (passphrase: string) => api.vault.createPassphrase({ passphrase }),
    onSuccess: onOpened,
  });
}
