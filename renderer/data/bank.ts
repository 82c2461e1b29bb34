/**
 * The console's own bank endpoints as server state (STYLE.md 7): status, test customers,
 * behaviours, forward mode, the notification prefix. `bank.changed` events replace the status
 * and invalidate the customers (app/live-updates.ts).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../electron/contract';
import { EXPORT_WITH_KEYS_CONFIRMATION, type BankStatus } from '../../electron/contract/schemas/bank';
import { useApi, useClient } from '../api/client-context';
import { saveTextFile } from '../shared/download';

/** Query keys of the bank endpoints (the tunnel's status lives under them too: data/tunnel.ts). */
export const bankKeys = {
  all: ['bank'] as const,
  /** bank.status; replaced by each live `bank.changed`. */
  status: () => [...bankKeys.all, 'status'] as const,
  /** bank.customers (keys masked); invalidated by `bank.changed`. */
  customers: () => [...bankKeys.all, 'customers'] as const,
  /** tunnel.status (public URL, tunnel, listener, last probe); replaced by each live `tunnel.changed`. */
  tunnel: () => [...bankKeys.all, 'tunnel'] as const,
};

export function useBankStatus() {
  const api = useApi();
  return useQuery({ queryKey: bankKeys.status(), queryFn: () => api.bank.status() });
}

export function useCustomers() {
  const api = useApi();
  return useQuery({ queryKey: bankKeys.customers(), queryFn: () => api.bank.customers() });
}

/** Every bank mutation leaves the customers and the status to be read again (bank.changed does it too). */
function useBankMutation<I, O>(fn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
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

/** A setting whose answer is one part of the status: it patches the cached status in place. */
function useStatusPatch<I, O>(run: (input: I) => Promise<O>, patch: (out: O) => Partial<BankStatus>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: (out) =>
      queryClient.setQueryData<BankStatus>(bankKeys.status(), (old) =>
        old ? { ...old, ...patch(out) } : old,
      ),
  });
}

export function useSetBehaviours() {
  const api = useApi();
  return useStatusPatch(
    (b: MethodInput<'bank.setBehaviours'>) => api.bank.setBehaviours(b),
    (behaviours) => ({ behaviours }),
  );
}

export function useSetForward() {
  const api = useApi();
  return useStatusPatch(
    (f: MethodInput<'bank.setForward'>) => api.bank.setForward(f),
    (forward) => ({ forward }),
  );
}

export function useSetNotifyPrefix() {
  const api = useApi();
  return useStatusPatch(
    (prefix: string) => api.bank.setNotifyPrefix({ prefix }),
    ({ notify_path_prefix }) => ({ notify_path_prefix }),
  );
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
