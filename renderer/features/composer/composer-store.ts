import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { z } from 'zod';
import { localPersist } from '../../shared/local-persist';

/**
 * The Composer's form, as UI state (it survives switching pages). `null` means "not touched":
 * the field shows the active environment's value (its active key, default obj and sub), so a
 * switch of environment carries through until the engineer types something of their own.
 */
export interface ComposerDraft {
  kid: string | null;
  obj: string | null;
  sub: string | null;
  /** Unix seconds as typed; empty: now, at signing time. */
  iat: string;
  ttl: string;
}

/** The obj/sub typed for one environment: remembered across visits and restarts (issue 13, item 6). */
const EnvClaims = z.object({ obj: z.string().optional(), sub: z.string().optional() });
type EnvClaims = z.infer<typeof EnvClaims>;

/**
 * One token the Composer signed. Only what the signing returned (a public token, its header
 * line and curl): the key itself never reaches the page (STYLE.md), so it cannot be kept here.
 */
const ComposedToken = z.object({
  token: z.string(),
  header_line: z.string(),
  curl: z.string().nullable(),
  environment_id: z.string(),
  kid: z.string(),
  obj: z.string(),
  sub: z.string(),
  /** ISO time of signing. */
  at: z.string(),
  /** The token's exp, Unix seconds, when it has one. */
  exp: z.number().nullable(),
});
export type ComposedToken = z.infer<typeof ComposedToken>;

/** Newest first; the oldest fall off past this many. */
export const HISTORY_LIMIT = 50;

const Persisted = z.object({
  claimsByEnv: z.record(z.string(), EnvClaims),
  history: z.array(ComposedToken).max(HISTORY_LIMIT),
});
type Persisted = z.infer<typeof Persisted>;

interface ComposerState extends Persisted {
  kid: string | null;
  iat: string;
  ttl: string;
  /** kid/iat/ttl for every environment; obj/sub for `envId` only. */
  set(envId: string, patch: Partial<ComposerDraft>): void;
  remember(token: ComposedToken): void;
  clearHistory(): void;
}

export const DEFAULT_TTL = 300;

const INITIAL = {
  kid: null,
  iat: '',
  ttl: String(DEFAULT_TTL),
  claimsByEnv: {} as Record<string, EnvClaims>,
  history: [] as ComposedToken[],
};

export const useComposerStore = create<ComposerState>()(
  persist(
    (set) => ({
      ...INITIAL,
      set: (envId, { obj, sub, ...rest }) =>
        set((s) => {
          const next: Partial<ComposerState> = { ...rest };
          if (obj !== undefined || sub !== undefined) {
            const claims = { ...s.claimsByEnv[envId] };
            // null: back to "not touched", so the environment's default shows again.
            if (obj !== undefined) claims.obj = obj ?? undefined;
            if (sub !== undefined) claims.sub = sub ?? undefined;
            next.claimsByEnv = { ...s.claimsByEnv, [envId]: claims };
          }
          return next;
        }),
      remember: (token) =>
        set((s) => ({
          history: [token, ...s.history.filter((t) => t.token !== token.token)].slice(0, HISTORY_LIMIT),
        })),
      clearHistory: () => set({ history: [] }),
    }),
    localPersist<ComposerState, Persisted>('composer', Persisted, (s) => ({
      claimsByEnv: s.claimsByEnv,
      history: s.history,
    })),
  ),
);

/** The form's draft in environment `envId`: its remembered obj/sub, the shared key and times. */
export function draftFor(s: ComposerState, envId: string): ComposerDraft {
  const claims = s.claimsByEnv[envId];
  return { kid: s.kid, obj: claims?.obj ?? null, sub: claims?.sub ?? null, iat: s.iat, ttl: s.ttl };
}

export function resetComposerStore(): void {
  useComposerStore.setState(INITIAL);
}
