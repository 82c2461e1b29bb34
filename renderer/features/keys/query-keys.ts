import type { MethodInput } from '../../../electron/contract';

type ExportFormat = MethodInput<'keys.export'>['format'];

/** Query keys of the signing keys (STYLE.md 7). */
export const keysKeys = {
  all: ['keys'] as const,
  /** keys.list; live `keys.changed` events replace it. */
  list: () => [...keysKeys.all, 'list'] as const,
  exports: () => [...keysKeys.all, 'export'] as const,
  /** keys.export of one key in one format (public parts only). */
  export: (kid: string, format: ExportFormat) => [...keysKeys.exports(), kid, format] as const,
};
