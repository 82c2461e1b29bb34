/** The bank endpoints' public URL and tunnel as server state (issue 14). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../electron/contract';
import type { TunnelStatus } from '../../electron/contract/schemas/tunnel';
import { useApi } from '../api/client-context';
import { bankKeys } from './bank';

/** The public URL, the tunnel, the listener's reach and the last probe (issue 14). */
export function useTunnelStatus() {
  const api = useApi();
  return useQuery({ queryKey: bankKeys.tunnel(), queryFn: () => api.tunnel.status() });
}

/** Each tunnel mutation answers with the new status, which replaces the cache. */
function useTunnelMutation<I>(fn: (input: I) => Promise<TunnelStatus>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (status) => queryClient.setQueryData(bankKeys.tunnel(), status),
  });
}

export function useSetPublicUrl() {
  const api = useApi();
  return useTunnelMutation((url: string | null) => api.tunnel.setPublicUrl({ url }));
}

export function useStartTunnel() {
  const api = useApi();
  return useTunnelMutation((target: string) => api.tunnel.start({ target }));
}

export function useStopTunnel() {
  const api = useApi();
  return useTunnelMutation(() => api.tunnel.stop());
}

export function useProbe() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.tunnel.probe(),
    onSuccess: (probe) =>
      queryClient.setQueryData<TunnelStatus>(bankKeys.tunnel(), (old) => (old ? { ...old, probe } : old)),
  });
}

/** Keeps the ssh tunnel's settings of the active environment (issue 26 item 4). */
export function useSaveSsh() {
  const api = useApi();
  return useTunnelMutation((input: MethodInput<'tunnel.saveSsh'>) => api.tunnel.saveSsh(input));
}

/** Pins the host key shown, by the fingerprint the engineer compared; the tunnel starts again. */
export function useTrustHostKey() {
  const api = useApi();
  return useTunnelMutation((input: { host: string; fingerprint: string }) => api.tunnel.trustHostKey(input));
}

/** Removes a host's pinned keys (after its owner confirmed a new one). */
export function useUnpinHostKey() {
  const api = useApi();
  return useTunnelMutation((host: string) => api.tunnel.unpinHostKey({ host }));
}
