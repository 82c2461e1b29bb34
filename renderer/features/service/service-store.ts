import { create } from 'zustand';

/**
 * The Service page's UI state: drafts (kept when switching pages), which exchanges are open. The
 * exchanges, results and the last rotation are server state in react-query.
 * `null` in a draft means "not touched": the field shows the active environment's default.
 */
export type AuthMode = 'compose' | 'paste';

export interface ClaimsDraft {
  kid: string | null;
  obj: string | null;
  sub: string | null;
}

export interface RotateDraft {
  /** A key already added with status next (e.g. held in an HSM or KMS); '' generates one. */
  next: string;
  alg: 'RS256' | 'RS384' | 'RS512' | 'PS256';
  bits: 2048 | 3072 | 4096;
  expires: string;
}

interface ServiceUiState {
  authMode: AuthMode;
  auth: ClaimsDraft;
  pastedToken: string;
  jwkKid: string | null;
  jwkGuid: string;
  rotate: RotateDraft;
  expanded: Record<string, boolean>;
  setAuthMode(mode: AuthMode): void;
  setAuth(patch: Partial<ClaimsDraft>): void;
  setPastedToken(token: string): void;
  setJwkKid(kid: string): void;
  setJwkGuid(guid: string): void;
  setRotate(patch: Partial<RotateDraft>): void;
  toggleExchange(id: string): void;
  expandExchange(id: string): void;
}

const INITIAL = {
  authMode: 'compose' as AuthMode,
  auth: { kid: null, obj: null, sub: null },
  pastedToken: '',
  jwkKid: null,
  jwkGuid: '',
  rotate: { next: '', alg: 'RS256', bits: 2048, expires: '' } as RotateDraft,
  expanded: {},
};

export const useServiceStore = create<ServiceUiState>()((set) => ({
  ...INITIAL,
  setAuthMode: (authMode) => set({ authMode }),
  setAuth: (patch) => set((s) => ({ auth: { ...s.auth, ...patch } })),
  setPastedToken: (pastedToken) => set({ pastedToken }),
  setJwkKid: (jwkKid) => set({ jwkKid }),
  setJwkGuid: (jwkGuid) => set({ jwkGuid }),
  setRotate: (patch) => set((s) => ({ rotate: { ...s.rotate, ...patch } })),
  toggleExchange: (id) => set((s) => ({ expanded: { ...s.expanded, [id]: !s.expanded[id] } })),
  expandExchange: (id) => set((s) => ({ expanded: { ...s.expanded, [id]: true } })),
}));

export function resetServiceStore(): void {
  useServiceStore.setState(INITIAL);
}
