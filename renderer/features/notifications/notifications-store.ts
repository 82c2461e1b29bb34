import { create } from 'zustand';
import type { Outcome, Route } from './notifications-model';

export type RateScale = 'second' | 'minute';

/** UI state of the Notifications page only. */
interface NotificationsState {
  route: Route | null;
  outcome: Outcome | null;
  text: string;
  grouped: boolean;
  scale: RateScale;
  /** The notification open in the detail view, and the keyboard cursor (j/k). */
  selectedId: string | null;
  cursorId: string | null;
  /** Grouped: the transactions shown open, by their row key (issue 27 item 3). */
  openGroups: Record<string, boolean>;
  setRoute: (route: Route | null) => void;
  setOutcome: (outcome: Outcome | null) => void;
  setText: (text: string) => void;
  setGrouped: (grouped: boolean) => void;
  setScale: (scale: RateScale) => void;
  select: (id: string | null) => void;
  moveCursor: (id: string) => void;
  setGroupOpen: (key: string, open: boolean) => void;
  /** Opens a group's member in the detail view, the cursor on its row (`m:<id>`). */
  openMember: (eventId: string, rowId: string) => void;
}

const INITIAL = {
  route: null,
  outcome: null,
  text: '',
  grouped: false,
  scale: 'second' as RateScale,
  selectedId: null,
  cursorId: null,
  openGroups: {} as Record<string, boolean>,
};

export const useNotificationsStore = create<NotificationsState>((set) => ({
  ...INITIAL,
  setRoute: (route) => set({ route }),
  setOutcome: (outcome) => set({ outcome }),
  setText: (text) => set({ text }),
  setGrouped: (grouped) => set({ grouped }),
  setScale: (scale) => set({ scale }),
  select: (id) => set(id === null ? { selectedId: null } : { selectedId: id, cursorId: id }),
  moveCursor: (id) => set({ cursorId: id }),
  setGroupOpen: (key, open) => set((s) => ({ openGroups: { ...s.openGroups, [key]: open } })),
  openMember: (eventId, rowId) => set({ selectedId: eventId, cursorId: rowId }),
}));

export function resetNotificationsStore(): void {
  useNotificationsStore.setState(INITIAL);
}
