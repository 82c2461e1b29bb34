/** Query keys of the environments (STYLE.md 7). */
export const envKeys = {
  all: ['env'] as const,
  /** env.list: every environment and the active id; live `env.changed` events replace it. */
  list: () => [...envKeys.all, 'list'] as const,
};
