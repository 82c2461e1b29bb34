/**
 * The environments as server state (STYLE.md 7): the sandbox and the real ones, which one is
 * active, and the mutations that change them. `env.changed` events replace the list
 * (app/live-updates.ts).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput, MethodOutput } from '../../electron/contract';
import { SANDBOX_ENVIRONMENT_ID, type Environment } from '../../electron/contract/schemas/service';
import { useApi } from '../api/client-context';

export type EnvironmentList = MethodOutput<'env.list'>;

/** The id of the built-in sandbox environment (it always exists, it cannot be removed). */
export const SANDBOX_ENV_ID = SANDBOX_ENVIRONMENT_ID;

/** Query keys of the environments. */
export const envKeys = {
  all: ['env'] as const,
  /** env.list: every environment and the active id; live `env.changed` events replace it. */
  list: () => [...envKeys.all, 'list'] as const,
};

export function useEnvironments() {
  const api = useApi();
  return useQuery({ queryKey: envKeys.list(), queryFn: () => api.env.list() });
}

export function activeEnvironment(list: EnvironmentList | undefined): Environment | null {
  if (!list) return null;
  return list.environments.find((e) => e.id === list.active_id) ?? null;
}

/**
 * The active environment, null while loading (or when the list failed).
 *
 * @example
 * const env = useActiveEnvironment();
 * const obj = draft.obj ?? env?.default_obj ?? '';
 */
export function useActiveEnvironment(): Environment | null {
  return activeEnvironment(useEnvironments().data);
}

/** A mutation whose answer is the whole new list (activate, remove): it replaces the cache. */
function useListMutation<I>(run: (input: I) => Promise<EnvironmentList>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: (list) => queryClient.setQueryData(envKeys.list(), list),
  });
}

export function useActivateEnvironment() {
  const api = useApi();
  return useListMutation((id: string) => api.env.activate({ id }));
}

export function useRemoveEnvironment() {
  const api = useApi();
  return useListMutation((id: string) => api.env.remove({ id }));
}

export function useSaveEnvironment() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'env.save'>) => api.env.save(input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: envKeys.list() }),
  });
}
