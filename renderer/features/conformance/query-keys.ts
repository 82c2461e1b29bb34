/** Query keys of the conformance page (STYLE.md 7). */
export const conformanceKeys = {
  all: ['conformance'] as const,
  /** The run on screen: the last report at first, then each `conformance.progressed` appends to it. */
  live: () => [...conformanceKeys.all, 'live'] as const,
};
