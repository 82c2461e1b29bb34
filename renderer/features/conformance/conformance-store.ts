import { create } from 'zustand';

/** UI-only state of the Conformance page: the form as typed, open cases, the failed-only filter. */
export interface ConformanceUiState {
  bankAuthUrl: string;
  obj: string;
  sub: string;
  jwksPort: string;
  expanded: Record<string, boolean>;
  failedOnly: boolean;
  setField(field: 'bankAuthUrl' | 'obj' | 'sub' | 'jwksPort', value: string): void;
  toggle(id: string): void;
  setFailedOnly(on: boolean): void;
}

export const useConformanceStore = create<ConformanceUiState>((set) => ({
  bankAuthUrl: '',
  obj: '',
  sub: '',
  jwksPort: '7303',
  expanded: {},
  failedOnly: false,
  setField: (field, value) => set({ [field]: value } as Pick<ConformanceUiState, typeof field>),
  toggle: (id) => set((s) => ({ expanded: { ...s.expanded, [id]: !s.expanded[id] } })),
  setFailedOnly: (failedOnly) => set({ failedOnly }),
}));
