import { create } from 'zustand';

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

interface ComposerState extends ComposerDraft {
  set(patch: Partial<ComposerDraft>): void;
  reset(): void;
}

export const DEFAULT_TTL = 300;

const INITIAL: ComposerDraft = { kid: null, obj: null, sub: null, iat: '', ttl: String(DEFAULT_TTL) };

export const useComposerStore = create<ComposerState>()((set) => ({
  ...INITIAL,
  set: (patch) => set(patch),
  reset: () => set(INITIAL),
}));

export function resetComposerStore(): void {
  useComposerStore.setState(INITIAL);
}
