import { create } from 'zustand';

/** Focus targets a keyboard shortcut can ask for; the owning component takes the request. */
export type FocusTarget = 'token-input';

interface UiState {
  pendingFocus: FocusTarget | null;
  requestFocus(target: FocusTarget): void;
  /** The owner calls this once it has focused the element. */
  takeFocus(target: FocusTarget): boolean;
}

export const useUiStore = create<UiState>()((set, get) => ({
  pendingFocus: null,
  requestFocus: (target) => set({ pendingFocus: target }),
  takeFocus: (target) => {
    if (get().pendingFocus !== target) return false;
    set({ pendingFocus: null });
    return true;
  },
}));
