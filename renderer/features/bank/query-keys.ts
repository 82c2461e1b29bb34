/** Query keys of the bank endpoints (STYLE.md 7). */
export const bankKeys = {
  all: ['bank'] as const,
  /** bank.status; replaced by each live `bank.changed`. */
  status: () => [...bankKeys.all, 'status'] as const,
  /** bank.customers (keys masked); invalidated by `bank.changed`. */
  customers: () => [...bankKeys.all, 'customers'] as const,
  /** tunnel.status (public URL, tunnel, listener, last probe); replaced by each live `tunnel.changed`. */
  tunnel: () => [...bankKeys.all, 'tunnel'] as const,
};
