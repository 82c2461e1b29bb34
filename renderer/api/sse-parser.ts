/**
 * A Server-Sent Events parser (the `text/event-stream` format of the HTML standard, §9.2.6),
 * for the event stream read with fetch: EventSource cannot send the X-DETS-Token header, so
 * the page reads the stream itself and needs what EventSource would have parsed.
 *
 * Kept: `event`, `data` (several lines joined by `\n`), `retry`, comments, and all three line
 * endings, even split across chunks. `id` is ignored: the console's stream does not resume
 * (a reconnected page reloads its queries instead).
 */

export interface SseMessage {
  /** The `event:` field; `message` when the message named none. */
  event: string;
  data: string;
}

export interface SseParser {
  /** Feeds the next piece of decoded text; complete messages are delivered at once. */
  push(text: string): void;
}

/** The longest line kept while waiting for its end; a stream that never ends one is cut. */
export const MAX_SSE_LINE = 8 * 1024 * 1024;

/**
 * @example
 * const parser = createSseParser((m) => console.log(m.event, m.data), (ms) => (retry = ms));
 * parser.push('event: app.noticed\ndata: {"a":1}\n\n'); // logs app.noticed {"a":1}
 */
export function createSseParser(
  onMessage: (message: SseMessage) => void,
  onRetry: (ms: number) => void = () => undefined,
): SseParser {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  // A CR at the end of a chunk may be the first half of a CRLF that the next chunk completes.
  let skipLf = false;
  // Set when an over-long line was cut: its remainder, up to the next line end, is dropped too.
  let discarding = false;

  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  };

  return {
    push(text) {
      if (skipLf && text.startsWith('\n')) text = text.slice(1);
      skipLf = false;
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        if (discarding) discarding = false;
        else line(buffer.slice(start, i));
        if (c === '\r') {
          if (i + 1 === buffer.length) skipLf = true;
          else if (buffer[i + 1] === '\n') i++;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
      if (buffer.length > MAX_SSE_LINE) {
        buffer = '';
        discarding = true;
      }
    },
  };
}
