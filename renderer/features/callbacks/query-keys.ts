/** Query keys of the Callbacks page (STYLE.md 7). */
export const callbacksKeys = {
  all: ['callbacks'] as const,
  /** The latest callback summaries, newest first; live `events.appended` callbacks are prepended. */
  list: () => [...callbacksKeys.all, 'list'] as const,
};
