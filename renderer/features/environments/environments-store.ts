import { create } from 'zustand';

/** The Environments page's UI state: which dialog is open. Environments are server state. */
export type EnvDialog = { kind: 'add' } | { kind: 'edit'; id: string } | { kind: 'remove'; id: string };

interface EnvUiState {
  dialog: EnvDialog | null;
  open(dialog: EnvDialog): void;
  close(): void;
}

export const useEnvironmentsStore = create<EnvUiState>()((set) => ({
  dialog: null,
  open: (dialog) => set({ dialog }),
  close: () => set({ dialog: null }),
}));

export function resetEnvironmentsStore(): void {
  useEnvironmentsStore.setState({ dialog: null });
}
