import { create } from 'zustand';

/** UI state of the Callbacks page only (server data lives in react-query). */
interface CallbacksState {
  failedOnly: boolean;
  /** Show only callbacks that failed this check id. */
  failedCheck: string | null;
  groupByCheck: boolean;
  /**
   * Show only callbacks of this environment (its id): those whose token's kid its service
   * published (issue 26 item 1, the store's `environment` column); null: every environment.
   */
  environment: string | null;
  /** The search box: the store's full-text search (events.query `text`). */
  text: string;
  /** The detail panel's callback. */
  selectedId: string | null;
  /** The keyboard cursor in the list (j/k); Enter opens it. */
  cursorId: string | null;
  setFailedOnly: (on: boolean) => void;
  setFailedCheck: (id: string | null) => void;
  setGroupByCheck: (on: boolean) => void;
  setEnvironment: (id: string | null) => void;
  setText: (text: string) => void;
  select: (id: string | null) => void;
  moveCursor: (id: string | null) => void;
}

const INITIAL = {
  failedOnly: false,
  failedCheck: null,
  groupByCheck: false,
  environment: null,
  text: '',
  selectedId: null,
  cursorId: null,
};

export const useCallbacksStore = create<CallbacksState>((set) => ({
  ...INITIAL,
  setFailedOnly: (failedOnly) => set({ failedOnly, ...(failedOnly ? {} : { failedCheck: null }) }),
  setFailedCheck: (failedCheck) => set({ failedCheck, ...(failedCheck ? { failedOnly: true } : {}) }),
  setGroupByCheck: (groupByCheck) => set({ groupByCheck }),
  setEnvironment: (environment) => set({ environment }),
  setText: (text) => set({ text }),
  select: (selectedId) => set(selectedId ? { selectedId, cursorId: selectedId } : { selectedId }),
  moveCursor: (cursorId) => set({ cursorId }),
}));

export function resetCallbacksStore(): void {
  useCallbacksStore.setState(INITIAL);
}
