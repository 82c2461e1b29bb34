/** Query keys of the Notifications page (STYLE.md 7): `all` + 'feed' + filters, `all` + 'stats' + query. */
export const notificationsKeys = {
  all: ['notifications'] as const,
  /** The retention of acknowledged notifications (events.retention). */
  retention: () => ['notifications', 'retention'] as const,
};
