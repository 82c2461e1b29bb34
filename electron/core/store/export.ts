import type { EventQuery } from '../../contract/schemas/events';
import type { EventReader } from './types';

/** The columns of a CSV export: the summary fields every list shows. */
const CSV_COLUMNS = [
  'id',
  'at',
  'kind',
  'path',
  'method',
  'status',
  'outcome',
  'transaction_id',
  'failed_check',
  'obj',
  'sub',
  'duration_ms',
  'warning',
  'remote',
] as const;

/** Exports at most this many events in one file. */
export const EXPORT_LIMIT = 100_000;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Matching events (oldest first) as JSON Lines (the whole records) or CSV (the summaries), for
 * a file the user saves from the Notifications or Callbacks page.
 */
export async function exportEvents(
  store: EventReader,
  format: 'json' | 'csv',
  query: EventQuery,
): Promise<{ text: string; filename: string; mime: string; count: number }> {
  const page = await store.query({ ...query, limit: Math.min(query.limit ?? EXPORT_LIMIT, EXPORT_LIMIT) });
  const summaries = [...page.events].reverse();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  if (format === 'csv') {
    const lines = [CSV_COLUMNS.join(',')];
    for (const e of summaries) lines.push(CSV_COLUMNS.map((c) => csvCell(e[c])).join(','));
    return {
      text: `${lines.join('\r\n')}\r\n`,
      filename: `dets-events-${stamp}.csv`,
      mime: 'text/csv',
      count: summaries.length,
    };
  }
  const records: string[] = [];
  for (const e of summaries) records.push(JSON.stringify(await store.get(e.id)));
  return {
    text: records.length ? `${records.join('\n')}\n` : '',
    filename: `dets-events-${stamp}.jsonl`,
    mime: 'application/x-ndjson',
    count: records.length,
  };
}
