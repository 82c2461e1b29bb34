import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../../electron/contract';
import type { BankStatus } from '../../../electron/contract/schemas/bank';
import { useApi, useClient } from '../../api/client-context';
import { saveTextFile } from '../../shared/download';
import { EXPORT_WITH_KEYS_CONFIRMATION } from '../../../electron/contract/schemas/bank';
import { bankKeys } from './query-keys';

export function useBankStatus() {
  const api = useApi();
  return useQuery({ queryKey: bankKeys.status(), queryFn: () => api.bank.status() });
}

export function useCustomers() {
  const api = useApi();
  return useQuery({ queryKey: bankKeys.customers(), queryFn: () => api.bank.customers() });
}

/** Every bank mutation leaves the customers and the status to be read again (bank.changed does it too). */
function useBankMutation<I, O>(fn: (input: I) => Promise<O>, onDone?: (out: O) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (out) => {
      onDone?.(out);
      void queryClient.invalidateQueries({ queryKey: bankKeys.customers() });
      return queryClient.invalidateQueries({ queryKey: bankKeys.status() });
    },
  });
}

export function useSaveCustomer() {
  const api = useApi();
  return useBankMutation((c: MethodInput<'bank.saveCustomer'>) => api.bank.saveCustomer(c));
}

export function useRemoveCustomer() {
  const api = useApi();
  return useBankMutation((obj: string) => api.bank.removeCustomer({ obj }));
}

export function useImportCustomers() {
  const api = useApi();
  return useBankMutation((text: string) => api.bank.importCustomers({ text }));
}

export function useExportCustomers() {
  const api = useApi();
  return useMutation({
    mutationFn: async () => {
      const out = await api.bank.exportCustomers();
      saveTextFile(out.text, out.filename, 'application/json');
      return out;
    },
  });
}

/**
 * The --users file WITH the secret keys: the core prepares a one-time download and the client
 * hands it unread to the browser's save flow, so no key passes through an answer the page
 * reads (issue 13, 7).
 */
export function useExportCustomersWithKeys() {
  const { api, download } = useClient();
  return useMutation({
    mutationFn: async () => {
      const out = await api.bank.exportCustomersWithKeys({ confirm: EXPORT_WITH_KEYS_CONFIRMATION });
      await download(out.path, out.filename);
      return out;
    },
  });
}

export function useSetBehaviours() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (b: MethodInput<'bank.setBehaviours'>) => api.bank.setBehaviours(b),
    onSuccess: (behaviours) =>
      queryClient.setQueryData<BankStatus>(bankKeys.status(), (old) => (old ? { ...old, behaviours } : old)),
  });
}

export function useSetForward() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (f: MethodInput<'bank.setForward'>) => api.bank.setForward(f),
    onSuccess: (forward) =>
      queryClient.setQueryData<BankStatus>(bankKeys.status(), (old) => (old ? { ...old, forward } : old)),
  });
}

export function useSetNotifyPrefix() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (prefix: string) => api.bank.setNotifyPrefix({ prefix }),
    onSuccess: ({ notify_path_prefix }) =>
      queryClient.setQueryData<BankStatus>(bankKeys.status(), (old) =>
        old ? { ...old, notify_path_prefix } : old,
      ),
  });
}

/** Routes with at least one deliberate misbehaviour switched on. */
export function activeBehaviours(status: BankStatus | undefined): string[] {
  if (!status) return [];
  return Object.entries(status.behaviours)
    .filter(
      ([, b]) =>
        (b.delay_ms ?? 0) > 0 ||
        b.status !== undefined ||
        b.omit_field !== undefined ||
        b.long_external_id === true,
    )
    .map(([route]) => route);
}
