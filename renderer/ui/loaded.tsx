/**
 * What a query shows: its error in an {@link ErrorPanel}, its data through `children`, or a
 * muted "Loading…" line while neither has come. The lists and panels repeated this three-way
 * choice around every query.
 */
import type { ReactNode } from 'react';
import { ErrorPanel } from '../shared/error-panel';

/** What Loaded needs of a react-query result. */
export interface QueryState<T> {
  data: T | undefined;
  error: Error | null;
}

/**
 * @example
 * <Loaded query={traces} errorTitle="Traces unavailable" errorTestId="traces-error" loading="Loading traces…">
 *   {(data) => <TracesTimeline traces={data} />}
 * </Loaded>
 */
export function Loaded<T>({
  query,
  errorTitle,
  errorTestId,
  loading,
  children,
}: {
  query: QueryState<T>;
  errorTitle: string;
  errorTestId: string;
  /** The muted line shown while loading. */
  loading: string;
  children: (data: T) => ReactNode;
}) {
  if (query.error) return <ErrorPanel title={errorTitle} error={query.error} testId={errorTestId} />;
  if (query.data !== undefined) return <>{children(query.data)}</>;
  return <p className="muted">{loading}</p>;
}
