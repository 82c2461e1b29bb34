/**
 * The composition root's factories: every service is built on first use, once (a console that
 * only inspects a token never opens the vault or the database).
 */

/**
 * Memoizes a factory: the value is built on first use, once.
 *
 * @example
 * const keys = lazy(() => createKeyStore({ dataDir, vault: vault(), events }));
 * keys() === keys(); // true
 */
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** A promise-returning factory built once, and whether it has been started. */
export type LazyAsync<T> = (() => Promise<T>) & {
  /** The promise when the factory was called (and has not failed), else undefined: for close. */
  started(): Promise<T> | undefined;
};

/**
 * A promise-returning factory built once; a failure is not cached, so it can be retried (a
 * fixed state file, a keychain unlocked later) without a restart.
 *
 * @example
 * const store = lazyAsync(() => openEventStore({ dataDir, events }));
 * await (await store.started()?.catch(() => undefined))?.close();
 */
export function lazyAsync<T>(make: () => Promise<T>): LazyAsync<T> {
  let made: Promise<T> | undefined;
  const get = () =>
    (made ??= make().catch((err: unknown) => {
      made = undefined;
      throw err;
    }));
  return Object.assign(get, { started: () => made });
}
