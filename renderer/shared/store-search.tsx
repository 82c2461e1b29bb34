import { useDebouncedValue } from './use-debounced-value';

/**
 * Search text this long or longer is answered from the store's trigram index (FTS5 trigram:
 * electron/core/store/reader.ts), a few milliseconds however many events are stored; shorter text
 * is a substring scan of every event of the kind.
 */
export const SEARCH_INDEXED_CHARS = 3;
/**
 * How long a short search text must stay unchanged before the store scans for it: a typist's
 * first two characters are rarely the search, and each would be a scan.
 */
export const SEARCH_SETTLE_MS = 250;

/**
 * The search text the store is asked for: at once when the index answers it (or the box is
 * cleared), so a filter shows the store's answer well within issue 13 item 9's 100 ms; after
 * SEARCH_SETTLE_MS when it would be a scan. Each answer replaces the last (the feed's cache is
 * keyed by the text), so a fast typist costs a few indexed queries, never a wrong list.
 */
export function useSettledSearch(text: string): string {
  const settled = useDebouncedValue(text, SEARCH_SETTLE_MS);
  const t = text.trim();
  return t === '' || [...t].length >= SEARCH_INDEXED_CHARS ? text : settled;
}

/**
 * The search box of an event list: its text goes to the event store's search (events.query
 * `text`, the FTS5 trigram index; issue 13, item 8), so it finds what is stored, not only what
 * the page holds. 200 characters is the contract's limit.
 */
export function StoreSearch({
  value,
  onChange,
  what,
  columns,
  className,
  testId,
}: {
  value: string;
  onChange: (text: string) => void;
  /** "callbacks", "notifications" */
  what: string;
  /** The columns searched, in words, for the placeholder and the tooltip. */
  columns: string;
  className: string;
  testId: string;
}) {
  return (
    <input
      className={`input ${className}`}
      type="search"
      placeholder={`Search ${columns}…`}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      data-testid={testId}
      aria-label={`Search ${what} (the store's full-text index)`}
      title={`Searched by the event store: ${columns}, any case`}
      maxLength={200}
      spellCheck={false}
    />
  );
}
