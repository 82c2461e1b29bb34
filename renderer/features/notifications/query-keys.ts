/** Query keys of the Notifications page (STYLE.md 7): `all` + 'feed' + filters, `all` + 'stats' + query. */
export const notificationsKeys = {
  all: ['notifications'] as const,
};
