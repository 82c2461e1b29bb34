import { describe, expect, it } from 'vitest';
import { MAX_SSE_LINE, createSseParser, type SseMessage } from '../../../renderer/api/sse-parser';

function parse(chunks: string[]) {
  const messages: SseMessage[] = [];
  const retries: number[] = [];
  const parser = createSseParser(
    (m) => messages.push(m),
    (ms) => retries.push(ms),
  );
  for (const c of chunks) parser.push(c);
  return { messages, retries };
}

const STREAM =
  'retry: 2000\n: connected\n\nevent: app.noticed\ndata: {"a":1}\n\n: heartbeat\n\nevent: store.changed\ndata: {"b":"x"}\n\n';

describe('the SSE parser', () => {
  it('reads named events, comments and retry the way the host writes them', () => {
    expect(parse([STREAM])).toEqual({
      messages: [
        { event: 'app.noticed', data: '{"a":1}' },
        { event: 'store.changed', data: '{"b":"x"}' },
      ],
      retries: [2000],
    });
  });

  it('gives the same messages however the text is cut into chunks', () => {
    const whole = parse([STREAM]).messages;
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
      expect(parse(chunks).messages, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('accepts CRLF and CR line ends, a CRLF split between chunks included', () => {
    const crlf = STREAM.replaceAll('\n', '\r\n');
    const cr = STREAM.replaceAll('\n', '\r');
    const whole = parse([STREAM]).messages;
    expect(parse([crlf]).messages).toEqual(whole);
    expect(parse([cr]).messages).toEqual(whole);
    const at = crlf.indexOf('\r\n') + 1; // cut between the CR and its LF
    expect(parse([crlf.slice(0, at), crlf.slice(at)]).messages).toEqual(whole);
  });

  it('joins several data lines, defaults the name to message and keeps a colon-less field', () => {
    expect(parse(['data:one\ndata: two\ndata\n\n']).messages).toEqual([
      { event: 'message', data: 'one\ntwo\n' },
    ]);
  });

  it('dispatches nothing for a block without data, and ignores unknown fields and bad retry values', () => {
    expect(parse(['event: app.noticed\n\nid: 7\nfoo: bar\nretry: soon\n\n'])).toEqual({
      messages: [],
      retries: [],
    });
  });

  it('cuts a line that never ends past the bound and carries on after the next line end', () => {
    const { messages } = parse([
      'event: app.noticed\ndata: ',
      'x'.repeat(MAX_SSE_LINE + 1),
      'still the same line\n\nevent: app.noticed\ndata: {"ok":true}\n\n',
    ]);
    expect(messages).toEqual([{ event: 'app.noticed', data: '{"ok":true}' }]);
  });
});
