import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useInspect } from '../../data/inspector';
import { useDebouncedValue } from '../../shared/use-debounced-value';
import { buildInspectInput } from './build-input';
import { useInspectorStore } from './inspector-store';

/** How long typing must pause before the token is inspected. */
export const INSPECT_DEBOUNCE_MS = 250;

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Inspects the form's token as the engineer types: debounced, keyed by the whole input. */
export function useInspection() {
  const form = useInspectorStore(
    useShallow((s) => ({
      raw: s.raw,
      keyChoice: s.keyChoice,
      keyUrl: s.keyUrl,
      keyText: s.keyText,
      expectedObj: s.expectedObj,
      expectedSub: s.expectedSub,
    })),
  );
  const built = useMemo(() => buildInspectInput(form), [form]);
  const input = useDebouncedValue(built.input, INSPECT_DEBOUNCE_MS, sameJson);
  const query = useInspect(input);
  return {
    query,
    input,
    keyProblem: built.keyProblem,
    /** Typing has not settled yet, or a request is in flight. */
    pending: !sameJson(built.input, input) || query.isFetching,
    hasToken: built.input.token !== '',
  };
}
