/** Query keys of the vault (STYLE.md 7). */
export const vaultKeys = {
  all: ['vault'] as const,
  /** vault.status; live `vault.changed` events replace it. */
  status: () => [...vaultKeys.all, 'status'] as const,
};
