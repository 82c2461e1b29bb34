import { create } from 'zustand';
import type { NotifyInput } from '../../../electron/contract/schemas/sandbox';

/**
 * The Sandbox page's UI state: drafts the engineer typed (kept when switching pages), which
 * counterparty and which traces are open, a pending confirmation. Server data (status, traces,
 * call results) lives in react-query, never here.
 */
export const URL_FIELDS = ['bank_auth_url', 'bank_sender_url', 'bank_receiver_url'] as const;
export type UrlField = (typeof URL_FIELDS)[number];
export type UrlDraft = Record<UrlField, string>;

export interface OnboardDraft extends UrlDraft {
  jwk: string;
  counterparty_guid: string;
  jwk_guid: string;
}
export type OnboardField = keyof OnboardDraft;

export interface NotifyDraft {
  event: NotifyInput['event'];
  to: 'sender' | 'receiver';
  transaction_id: string;
  /** '' sends the valid body; otherwise that malformed body, to test the bank's rejection path. */
  malformed: '' | NonNullable<NotifyInput['malformed']>;
  /** Issue 27: the guide's ladder (`service`) or one attempt (`once`). */
  ladder: 'service' | 'once';
  /** Faults, as typed: '' leaves one out (notify-input.ts turns them into the input). */
  duplicates: string;
  concurrent: boolean;
  lost_ack: boolean;
  timeout_ms: string;
  /** A notification of the same transaction_id sent after this one ('' none): a pay-out before its pay-in. */
  then: '' | 'pay-in' | 'pay-out';
}

/** Which deliveries the Deliveries panel lists. */
export type DeliveryFilter = 'all' | 'delivering' | 'delivered' | 'escalated';

/**
 * The sign-in's bank JWT: composed here from a vault key and a customer (the default once a
 * vault key is registered for the counterparty), or pasted. `null` fields: not chosen yet, the
 * form's default shows.
 */
export interface SignInDraft {
  mode: 'compose' | 'paste' | null;
  kid: string | null;
  obj: string | null;
  sub: string | null;
}
export const EMPTY_SIGN_IN: SignInDraft = { mode: null, kid: null, obj: null, sub: null };

export const EMPTY_ONBOARD: OnboardDraft = {
  jwk: '',
  counterparty_guid: '',
  jwk_guid: '',
  bank_auth_url: '',
  bank_sender_url: '',
  bank_receiver_url: '',
};

export const DEFAULT_NOTIFY: NotifyDraft = {
  event: 'pay-in',
  to: 'receiver',
  transaction_id: '',
  malformed: '',
  ladder: 'service',
  duplicates: '',
  concurrent: false,
  lost_ack: false,
  timeout_ms: '',
  then: '',
};

interface SandboxUiState {
  onboardOpen: boolean;
  onboard: OnboardDraft;
  /** The counterparty whose details are shown; null: none open. */
  openCounterparty: string | null;
  /** Bank URL edits not saved yet, by counterparty; absent: showing the saved values. */
  urlDrafts: Record<string, UrlDraft>;
  /** The bank JWT to sign in with, by counterparty. */
  signInTokens: Record<string, string>;
  signInDrafts: Record<string, SignInDraft>;
  notifyDrafts: Record<string, NotifyDraft>;
  /** Traces shown with their steps. */
  expandedTraces: Record<string, boolean>;
  confirmingRotate: boolean;
  deliveryFilter: DeliveryFilter;
  /** Deliveries shown with their timeline. */
  openDeliveries: Record<string, boolean>;

  setOnboardOpen(open: boolean): void;
  setOnboard(patch: Partial<OnboardDraft>): void;
  resetOnboard(): void;
  toggleCounterparty(guid: string): void;
  openCounterpartyOnly(guid: string): void;
  setUrlDraft(guid: string, draft: UrlDraft | null): void;
  setSignInToken(guid: string, token: string): void;
  setSignInDraft(guid: string, patch: Partial<SignInDraft>): void;
  setNotifyDraft(guid: string, patch: Partial<NotifyDraft>): void;
  toggleTrace(id: string): void;
  expandTrace(id: string): void;
  setConfirmingRotate(on: boolean): void;
  setDeliveryFilter(filter: DeliveryFilter): void;
  toggleDelivery(id: string): void;
  /** Opens a delivery's timeline under `filter` (a sent notification, the header's escalation). */
  showDelivery(id: string, filter?: DeliveryFilter): void;
}

const INITIAL = {
  onboardOpen: false,
  onboard: EMPTY_ONBOARD,
  openCounterparty: null,
  urlDrafts: {},
  signInTokens: {},
  signInDrafts: {},
  notifyDrafts: {},
  expandedTraces: {},
  confirmingRotate: false,
  deliveryFilter: 'all' as DeliveryFilter,
  openDeliveries: {},
};

export const useSandboxStore = create<SandboxUiState>()((set) => ({
  ...INITIAL,
  setOnboardOpen: (open) => set({ onboardOpen: open }),
  setOnboard: (patch) => set((s) => ({ onboard: { ...s.onboard, ...patch } })),
  resetOnboard: () => set({ onboard: EMPTY_ONBOARD }),
  toggleCounterparty: (guid) => set((s) => ({ openCounterparty: s.openCounterparty === guid ? null : guid })),
  openCounterpartyOnly: (guid) => set({ openCounterparty: guid }),
  setUrlDraft: (guid, draft) =>
    set((s) => {
      const urlDrafts = { ...s.urlDrafts };
      if (draft) urlDrafts[guid] = draft;
      else delete urlDrafts[guid];
      return { urlDrafts };
    }),
  setSignInToken: (guid, token) => set((s) => ({ signInTokens: { ...s.signInTokens, [guid]: token } })),
  setSignInDraft: (guid, patch) =>
    set((s) => ({
      signInDrafts: { ...s.signInDrafts, [guid]: { ...(s.signInDrafts[guid] ?? EMPTY_SIGN_IN), ...patch } },
    })),
  setNotifyDraft: (guid, patch) =>
    set((s) => ({
      notifyDrafts: { ...s.notifyDrafts, [guid]: { ...(s.notifyDrafts[guid] ?? DEFAULT_NOTIFY), ...patch } },
    })),
  toggleTrace: (id) => set((s) => ({ expandedTraces: { ...s.expandedTraces, [id]: !s.expandedTraces[id] } })),
  expandTrace: (id) => set((s) => ({ expandedTraces: { ...s.expandedTraces, [id]: true } })),
  setConfirmingRotate: (on) => set({ confirmingRotate: on }),
  setDeliveryFilter: (deliveryFilter) => set({ deliveryFilter }),
  toggleDelivery: (id) =>
    set((s) => ({ openDeliveries: { ...s.openDeliveries, [id]: !s.openDeliveries[id] } })),
  showDelivery: (id, filter) =>
    set((s) => ({
      openDeliveries: { ...s.openDeliveries, [id]: true },
      deliveryFilter: filter ?? 'all',
    })),
}));

export function resetSandboxStore(): void {
  useSandboxStore.setState(INITIAL);
}

/** Opens a call's trace in the timeline (the sign-in and notify forms' `onTrace`). */
export function showTrace(trace: { id: string }): void {
  useSandboxStore.getState().expandTrace(trace.id);
}
