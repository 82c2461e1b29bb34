import { create } from 'zustand';
import { SPEC_NOTIFY_PREFIX } from '../../../electron/contract/schemas/service-paths';

/** The form's typed fields: the callbacks' and the notification endpoints' (issue 27 item 4). */
export type ConformanceField =
  'bankAuthUrl' | 'obj' | 'sub' | 'jwksPort' | 'notifyUrl' | 'notifyPrefix' | 'probeUrl' | 'expectedFailures';

/** UI-only state of the Conformance page: the form as typed, open cases, the failed-only filter. */
export interface ConformanceUiState extends Record<ConformanceField, string> {
  expanded: Record<string, boolean>;
  failedOnly: boolean;
  /**
   * obj/sub typed by the engineer: until then the fields show the active environment's defaults
   * (issue 26 item 3: a walkthrough's customer becomes them, so the page starts filled).
   */
  typed: { obj?: boolean; sub?: boolean };
  setField(field: ConformanceField, value: string): void;
  toggle(id: string): void;
  setFailedOnly(on: boolean): void;
}

export const useConformanceStore = create<ConformanceUiState>((set) => ({
  bankAuthUrl: '',
  obj: '',
  sub: '',
  jwksPort: '7303',
  notifyUrl: '',
  notifyPrefix: SPEC_NOTIFY_PREFIX,
  probeUrl: '',
  expectedFailures: '',
  expanded: {},
  failedOnly: false,
  typed: {},
  setField: (field, value) =>
    set((s) => ({
      [field]: value,
      ...(field === 'obj' || field === 'sub' ? { typed: { ...s.typed, [field]: true } } : {}),
    })),
  toggle: (id) => set((s) => ({ expanded: { ...s.expanded, [id]: !s.expanded[id] } })),
  setFailedOnly: (failedOnly) => set({ failedOnly }),
}));
