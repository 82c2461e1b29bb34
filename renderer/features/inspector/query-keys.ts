import type { InspectInput } from '../../../electron/contract/schemas/inspector';

/** Query keys of the Inspector (STYLE.md 7). A report is keyed by everything it depends on. */
export const inspectorKeys = {
  all: ['inspector'] as const,
  reports: () => [...inspectorKeys.all, 'inspect'] as const,
  inspect: (input: InspectInput) => [...inspectorKeys.reports(), input] as const,
};
