/** Query keys of the app shell (STYLE.md 7: one factory per feature). */
export const appKeys = {
  all: ['app'] as const,
  info: () => [...appKeys.all, 'info'] as const,
  /** Notices pushed by the core over the live event stream (app.noticed), newest last. */
  notices: () => [...appKeys.all, 'notices'] as const,
  /** The event store's health (events.health, pushed by store.changed). */
  storeHealth: () => [...appKeys.all, 'store-health'] as const,
};
