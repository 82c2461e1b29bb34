/**
 * Focus requests: a keyboard shortcut (app/shortcuts.ts) asks for a field, and the component that
 * owns it takes the request once it is on screen (the Inspector's token input).
 */
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

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
/** The shortcut that focuses the token input, as the keyboard of this machine names it. */
export const MOD_KEY_LABEL = isMac ? '⌘K' : 'Ctrl K';
