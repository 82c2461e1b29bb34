import { create } from 'zustand';
import { takeInspectorHandoffs, type InspectorHandoff } from '../../shared/inspector-handoff';
import { SAMPLE_JWK, SAMPLE_OBJ, SAMPLE_SUB, SAMPLE_TOKEN } from './sample';

/**
 * The Inspector's form, as UI state: what the engineer typed survives switching pages. The
 * report itself is server state and lives in react-query, never here.
 */
export type KeyChoice = 'none' | 'jwks-url' | 'text';

export interface InspectorForm {
  raw: string;
  keyChoice: KeyChoice;
  keyUrl: string;
  keyText: string;
  expectedObj: string;
  expectedSub: string;
}

interface InspectorStore extends InspectorForm {
  set(patch: Partial<InspectorForm>): void;
  /** Fills the form from another page: the token, its key and the claims it must carry. */
  load(handoff: InspectorHandoff): void;
  loadSample(): void;
  /** Clear empties the whole form (token, key source, expected obj/sub): nothing from before judges the next token. */
  clear(): void;
}

export const EMPTY_FORM: InspectorForm = {
  raw: '',
  keyChoice: 'none',
  keyUrl: '',
  keyText: '',
  expectedObj: '',
  expectedSub: '',
};

export const useInspectorStore = create<InspectorStore>()((set) => ({
  ...EMPTY_FORM,
  set: (patch) => set(patch),
  load: (h) =>
    set({
      raw: h.token,
      ...(h.keyText !== undefined ? { keyChoice: 'text' as const, keyText: h.keyText } : {}),
      ...(h.keyUrl !== undefined ? { keyChoice: 'jwks-url' as const, keyUrl: h.keyUrl } : {}),
      expectedObj: h.expectedObj ?? '',
      expectedSub: h.expectedSub ?? '',
    }),
  // The whole demo: token, its key and its claims, so the one failure shown is the real one (exp).
  loadSample: () =>
    set({
      raw: SAMPLE_TOKEN,
      keyChoice: 'text',
      keyText: JSON.stringify(SAMPLE_JWK, null, 2),
      expectedObj: SAMPLE_OBJ,
      expectedSub: SAMPLE_SUB,
    }),
  clear: () => set(EMPTY_FORM),
}));

// Tokens handed over from other pages fill the form, whenever this module loads.
takeInspectorHandoffs((handoff) => useInspectorStore.getState().load(handoff));

export function resetInspectorStore(): void {
  useInspectorStore.setState(EMPTY_FORM);
}
