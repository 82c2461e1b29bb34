/** Query keys of the service client (STYLE.md 7). */
export const serviceKeys = {
  all: ['service'] as const,
  /** service.exchanges, newest first; live `service.exchanged` events are prepended. */
  exchanges: () => [...serviceKeys.all, 'exchanges'] as const,
  /** The last rotation this page saw (a `service.rotate` answer or a `service.rotated` event). */
  rotation: () => [...serviceKeys.all, 'rotation'] as const,
};
