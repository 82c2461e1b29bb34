/** Query keys of the Callbacks page (STYLE.md 7): `all` + 'feed' + filters, `all` + 'stats' + query. */
export const callbacksKeys = {
  all: ['callbacks'] as const,
};
