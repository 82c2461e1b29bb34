import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../../electron/contract';
import type { Counterparty, SandboxStatus, Trace } from '../../../electron/contract/schemas/sandbox';
import { useApi, useLiveEvent } from '../../api/client-context';
import { sandboxKeys } from './query-keys';
import { useSandboxStore } from './sandbox-store';

/** How many traces the timeline keeps (the core keeps more; `sandbox.traces` pages them). */
export const TRACE_LIMIT = 100;

export function useSandboxStatus() {
  const api = useApi();
  return useQuery({ queryKey: sandboxKeys.status(), queryFn: () => api.sandbox.status() });
}

export function useSandboxTraces() {
  const api = useApi();
  return useQuery({
    queryKey: sandboxKeys.traces(),
    queryFn: () => api.sandbox.traces({ limit: TRACE_LIMIT }),
  });
}

/** Newest first, one entry per id: a trace can arrive both live and as a call's result. */
export function mergeTrace(list: Trace[] | undefined, trace: Trace): Trace[] {
  const rest = (list ?? []).filter((t) => t.id !== trace.id);
  return [trace, ...rest].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, TRACE_LIMIT);
}

function addTrace(queryClient: QueryClient, trace: Trace): void {
  queryClient.setQueryData<Trace[]>(sandboxKeys.traces(), (old) => mergeTrace(old, trace));
}

/**
 * Live updates while the page is open: each recorded trace goes straight into the timeline's
 * cache; any change of keys, counterparties or settings refetches the status.
 */
export function useSandboxLiveUpdates(): void {
  const queryClient = useQueryClient();
  useLiveEvent('sandbox.traced', (trace) => addTrace(queryClient, trace));
  useLiveEvent('sandbox.changed', () => {
    void queryClient.invalidateQueries({ queryKey: sandboxKeys.status() });
  });
}

export function useOnboard() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.onboard'>) => api.sandbox.onboard(input),
    onSuccess: (created) => {
      useSandboxStore.getState().openCounterpartyOnly(created.counterparty_guid);
      return queryClient.invalidateQueries({ queryKey: sandboxKeys.status() });
    },
  });
}

export function useUpdateCounterparty() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.updateCounterparty'>) => api.sandbox.updateCounterparty(input),
    onSuccess: (updated: Counterparty) => {
      queryClient.setQueryData<SandboxStatus>(sandboxKeys.status(), (old) =>
        old
          ? {
              ...old,
              counterparties: old.counterparties.map((c) =>
                c.counterparty_guid === updated.counterparty_guid ? updated : c,
              ),
            }
          : old,
      );
    },
  });
}

/** The trace of a call's result goes into the timeline at once (and opens), live events or not. */
function useTraceResult() {
  const queryClient = useQueryClient();
  return (trace: Trace) => {
    addTrace(queryClient, trace);
    useSandboxStore.getState().expandTrace(trace.id);
  };
}

export function useSignIn() {
  const api = useApi();
  const showTrace = useTraceResult();
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.signIn'>) => api.sandbox.signIn(input),
    onSuccess: (result) => showTrace(result.trace),
  });
}

export function useNotify() {
  const api = useApi();
  const showTrace = useTraceResult();
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.notify'>) => api.sandbox.notify(input),
    onSuccess: (result) => showTrace(result.trace),
  });
}

export function useRotateKey() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.sandbox.rotateKey(),
    onSuccess: (status) => queryClient.setQueryData(sandboxKeys.status(), status),
  });
}
