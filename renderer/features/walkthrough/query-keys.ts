/** Query keys of the walkthrough (STYLE.md 7). */
export const walkthroughKeys = {
  all: ['walkthrough'] as const,
  /** walkthrough.state of the active environment; live events invalidate it. */
  state: () => [...walkthroughKeys.all, 'state'] as const,
};
