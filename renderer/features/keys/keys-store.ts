import { create } from 'zustand';
import type { ExportFormat } from '../../data/keys';

/**
 * The Keys page's UI state: which dialog is open, the export format last chosen, the key just
 * created (highlighted). Keys themselves are server state (react-query); a pasted private key is
 * never kept here, only in the import dialog's own state until it is sent.
 */
export type KeysDialog =
  | { kind: 'generate' }
  | { kind: 'import' }
  | { kind: 'external' }
  | { kind: 'export'; kid: string }
  | { kind: 'delete'; kid: string };

interface KeysUiState {
  dialog: KeysDialog | null;
  exportFormat: ExportFormat;
  highlight: string | null;
  open(dialog: KeysDialog): void;
  close(): void;
  setExportFormat(format: ExportFormat): void;
  setHighlight(kid: string | null): void;
}

const INITIAL = { dialog: null, exportFormat: 'jwk' as ExportFormat, highlight: null };

export const useKeysStore = create<KeysUiState>()((set) => ({
  ...INITIAL,
  open: (dialog) => set({ dialog }),
  close: () => set({ dialog: null }),
  setExportFormat: (exportFormat) => set({ exportFormat }),
  setHighlight: (highlight) => set({ highlight }),
}));

export function resetKeysStore(): void {
  useKeysStore.setState(INITIAL);
}
