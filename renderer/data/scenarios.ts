/**
 * Scenarios as server state (issue 28): the folder the engineer keeps them in (a UI preference,
 * remembered in localStorage), its files, saving a selection of events as a scenario there (the
 * Callbacks page), and running one against the active environment's bank (the Scenarios page).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { MethodInput } from '../../electron/contract';
import { useApi } from '../api/client-context';
import { localPersist } from '../shared/local-persist';

export const scenarioKeys = {
  all: ['scenarios'] as const,
  folder: (folder: string) => [...scenarioKeys.all, 'folder', folder] as const,
};

interface FolderState {
  /** The folder of scenario files (the repository's), '' until the engineer picks one. */
  folder: string;
  setFolder: (folder: string) => void;
}

/** The scenario folder, shared by the Scenarios page and the Callbacks page's "Save as scenario". */
export const useScenarioFolder = create<FolderState>()(
  persist(
    (set) => ({ folder: '', setFolder: (folder) => set({ folder }) }),
    localPersist('scenario-folder', z.object({ folder: z.string().max(4096) }), (s) => ({
      folder: s.folder,
    })),
  ),
);

/** The scenario files of `folder`, each checked (none asked while the folder is empty). */
export function useScenarioFiles(folder: string) {
  const api = useApi();
  return useQuery({
    queryKey: scenarioKeys.folder(folder),
    queryFn: () => api.scenario.list({ folder }),
    enabled: folder.trim() !== '',
    retry: false,
  });
}

/** Records events as a scenario file in a folder; the folder's listing is fetched again. */
export function useSaveScenario() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MethodInput<'scenario.save'>) => api.scenario.save(input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scenarioKeys.all }),
  });
}

/** Runs one scenario file against the active environment's bank; answers its report. */
export function useRunScenario() {
  const api = useApi();
  return useMutation({ mutationFn: (input: MethodInput<'scenario.run'>) => api.scenario.run(input) });
}
