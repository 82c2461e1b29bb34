/**
 * The walkthrough as server state (STYLE.md 7): derived in the core from the stores, so live
 * events invalidate it (coalesced) and never patch it here.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { EventName, MethodInput } from '../../electron/contract';
import { useApi, useLiveEvent } from '../api/client-context';
import { saveTextFile } from '../shared/download';

/** Query keys of the walkthrough. */
export const walkthroughKeys = {
  all: ['walkthrough'] as const,
  /** walkthrough.state of the active environment; live events invalidate it. */
  state: () => [...walkthroughKeys.all, 'state'] as const,
};

export function useWalkthrough() {
  const api = useApi();
  return useQuery({ queryKey: walkthroughKeys.state(), queryFn: () => api.walkthrough.state() });
}

/** Events after which a step's state may have changed: each one schedules a refetch. */
const TRIGGERS = [
  'events.appended',
  'keys.changed',
  'env.changed',
  'service.exchanged',
  'service.rotated',
  'sandbox.changed',
  'sandbox.traced',
  'bank.changed',
  'walkthrough.changed',
  'tunnel.changed',
  'tunnel.probed',
] as const satisfies readonly EventName[];

/** Bursts (three notifications, a rotation's exchanges) become one refetch. */
const COALESCE_MS = 200;

/**
 * Live state: the walkthrough is derived in the core from the stores, so any event that can
 * change a step invalidates the query (coalesced), never patches it here.
 */
export function useWalkthroughLiveUpdates(): void {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const schedule = () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void queryClient.invalidateQueries({ queryKey: walkthroughKeys.state() });
    }, COALESCE_MS);
  };
  // Only stored events a step can be proven by: not every callback of a load test.
  useLiveEvent(TRIGGERS[0], (e) => {
    if (e.kind !== 'callback' || e.path === '/user_auth') schedule();
  });
  useLiveEvent(TRIGGERS[1], schedule);
  useLiveEvent(TRIGGERS[2], schedule);
  useLiveEvent(TRIGGERS[3], schedule);
  useLiveEvent(TRIGGERS[4], schedule);
  useLiveEvent(TRIGGERS[5], schedule);
  useLiveEvent(TRIGGERS[6], schedule);
  useLiveEvent(TRIGGERS[7], schedule);
  useLiveEvent(TRIGGERS[8], schedule);
  // The public URL and the test from outside decide a real environment's step 5 (issue 14 item 5).
  useLiveEvent(TRIGGERS[9], schedule);
  useLiveEvent(TRIGGERS[10], schedule);
}

export function useRunStep() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'walkthrough.run'>) => api.walkthrough.run(input),
    onSuccess: (result) => queryClient.setQueryData(walkthroughKeys.state(), result.state),
  });
}

export function useResetWalkthrough() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.walkthrough.reset(),
    onSuccess: (state) => queryClient.setQueryData(walkthroughKeys.state(), state),
  });
}

/** The evidence pack, saved as a file by the browser's own save flow. */
export function useExportPack() {
  const api = useApi();
  return useMutation({
    mutationFn: () => api.walkthrough.exportPack(),
    onSuccess: (pack) => saveTextFile(pack.text, pack.filename, pack.mime),
  });
}
