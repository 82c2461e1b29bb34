import { createJSONStorage, type PersistOptions } from 'zustand/middleware';
import type { z } from 'zod';

/**
 * Options for zustand's `persist` over localStorage, for UI preferences only (STYLE.md: server
 * state lives in react-query, never here; nothing secret is ever written). What comes back from
 * storage was written by an older build or edited by hand, so it is parsed with `schema`: a value
 * that does not fit is dropped and the store keeps its defaults instead of crashing the page.
 */
export function localPersist<S, P>(
  name: string,
  schema: z.ZodType<P>,
  partialize: (state: S) => P,
): PersistOptions<S, P> {
  return {
    name: `dets-console.${name}`,
    version: 1,
    storage: createJSONStorage(() => window.localStorage),
    partialize,
    merge: (persisted, current) => {
      const parsed = schema.safeParse(persisted);
      return parsed.success ? { ...current, ...parsed.data } : current;
    },
  };
}
