/**
 * One serial queue for every read-modify-write of a file or a row (keys, customers, bank
 * settings, environments, walkthrough progress): tasks run one at a time, in call order, so two
 * calls in one process never interleave their read and their write.
 */

/**
 * Runs tasks one at a time, in call order (a failed task does not stop the next).
 *
 * @example
 * const serial = serializer();
 * await serial(() => readModifyWrite());
 */
export function serializer(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task);
    // The tail never rejects, so the next task runs whatever this one did.
    tail = run.catch(() => undefined);
    return run;
  };
}
