/** Query keys of the Notifications page (STYLE.md 7). */
export const notificationsKeys = {
  all: ['notifications'] as const,
  /** Pages of notification summaries, newest first (events.query, `before` the last id); live ones prepended. */
  feed: () => [...notificationsKeys.all, 'feed'] as const,
};
