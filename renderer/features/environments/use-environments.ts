import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput, MethodOutput } from '../../../electron/contract';
import type { Environment } from '../../../electron/contract/schemas/service';
import { useApi } from '../../api/client-context';
import { envKeys } from './query-keys';

export type EnvironmentList = MethodOutput<'env.list'>;

/** The id of the built-in sandbox environment (it always exists, it cannot be removed). */
export const SANDBOX_ENV_ID = 'sandbox';

export function useEnvironments() {
  const api = useApi();
  return useQuery({ queryKey: envKeys.list(), queryFn: () => api.env.list() });
}

export function activeEnvironment(list: EnvironmentList | undefined): Environment | null {
  if (!list) return null;
  return list.environments.find((e) => e.id === list.active_id) ?? null;
}

/** The active environment, null while loading (or when the list failed). */
export function useActiveEnvironment(): Environment | null {
  return activeEnvironment(useEnvironments().data);
}

export function useActivateEnvironment() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.env.activate({ id }),
    onSuccess: (list) => queryClient.setQueryData(envKeys.list(), list),
  });
}

export function useSaveEnvironment() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'env.save'>) => api.env.save(input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: envKeys.list() }),
  });
}

export function useRemoveEnvironment() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.env.remove({ id }),
    onSuccess: (list) => queryClient.setQueryData(envKeys.list(), list),
  });
}
