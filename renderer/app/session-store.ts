import { create } from 'zustand';

/** UI state about this page's access to the host (not server data). */
interface SessionState {
  /** Set when the host refused the access token; the app then shows the token help page. */
  accessRejected: string | null;
  rejectAccess(message: string): void;
}

export const useSessionStore = create<SessionState>()((set) => ({
  accessRejected: null,
  rejectAccess: (message) => set({ accessRejected: message }),
}));
