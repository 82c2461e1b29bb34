/** The bench itself is broken (a server failed, a non-2xx or bad response, a failed spot check): its figures mean nothing. */
export class BenchBroken extends Error {
  override name = 'BenchBroken';
}
