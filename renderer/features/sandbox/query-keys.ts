/** Query keys of the Sandbox page (STYLE.md 7). */
export const sandboxKeys = {
  all: ['sandbox'] as const,
  /** sandbox.status: URL, keys, counterparties, settings. */
  status: () => [...sandboxKeys.all, 'status'] as const,
  /** sandbox.traces, newest first; live sandbox.traced events are prepended here. */
  traces: () => [...sandboxKeys.all, 'traces'] as const,
};
