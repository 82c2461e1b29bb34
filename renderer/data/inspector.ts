/** Token inspection (`inspector.inspect`) as server state: a report is keyed by everything it depends on. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { InspectInput } from '../../electron/contract/schemas/inspector';
import { useApi } from '../api/client-context';

/** Query keys of the Inspector. */
export const inspectorKeys = {
  all: ['inspector'] as const,
  reports: () => [...inspectorKeys.all, 'inspect'] as const,
  inspect: (input: InspectInput) => [...inspectorKeys.reports(), input] as const,
};

/**
 * The report on `input`, asked again whenever it changes; the last report stays on screen while
 * the next one is computed. Nothing is asked for without a token.
 */
export function useInspect(input: InspectInput) {
  const api = useApi();
  return useQuery({
    queryKey: inspectorKeys.inspect(input),
    queryFn: () => api.inspector.inspect(input),
    enabled: input.token !== '',
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 0,
  });
}
