/**
 * The sandbox as server state (STYLE.md 7): its status (keys, counterparties, settings), the
 * trace timeline, and the calls that play the service (onboard, sign-in, notify). What the page
 * shows after a call (which counterparty or trace is open) is its own UI state: the mutations
 * take an `onDone` for that.
 */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { MethodInput, MethodOutput } from '../../electron/contract';
import type { Counterparty, SandboxStatus, Trace } from '../../electron/contract/schemas/sandbox';
import { useApi, useLiveEvent } from '../api/client-context';

/** Query keys of the Sandbox page. */
export const sandboxKeys = {
  all: ['sandbox'] as const,
  /** sandbox.status: URL, keys, counterparties, settings. */
  status: () => [...sandboxKeys.all, 'status'] as const,
  /** sandbox.traces, newest first; live sandbox.traced events are prepended here. */
  traces: () => [...sandboxKeys.all, 'traces'] as const,
};

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

/** Onboarding; `onDone` hears the new counterparty before the status is read again. */
export function useOnboard(onDone: (created: MethodOutput<'sandbox.onboard'>) => void = () => undefined) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.onboard'>) => api.sandbox.onboard(input),
    onSuccess: (created) => {
      onDone(created);
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

/**
 * The trace of a call's result goes into the timeline at once, live events or not; `onTrace`
 * hears it too (the page opens it).
 */
function useTraceResult(onTrace: (trace: Trace) => void) {
  const queryClient = useQueryClient();
  return (trace: Trace) => {
    addTrace(queryClient, trace);
    onTrace(trace);
  };
}

type OnTrace = (trace: Trace) => void;
const ignoreTrace: OnTrace = () => undefined;

export function useSignIn(onTrace: OnTrace = ignoreTrace) {
  const api = useApi();
  const showTrace = useTraceResult(onTrace);
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.signIn'>) => api.sandbox.signIn(input),
    onSuccess: (result) => showTrace(result.trace),
  });
}

export function useNotify(onTrace: OnTrace = ignoreTrace) {
  const api = useApi();
  const showTrace = useTraceResult(onTrace);
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

/** Sandbox settings (the delivery ladder's among them); the status shows the saved ones at once. */
export function useUpdateSandboxSettings() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'sandbox.updateSettings'>) => api.sandbox.updateSettings(input),
    onSuccess: (settings) =>
      queryClient.setQueryData<SandboxStatus>(sandboxKeys.status(), (old) =>
        old ? { ...old, settings } : old,
      ),
  });
}
