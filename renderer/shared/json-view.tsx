import type { ReactNode } from 'react';

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** Pretty JSON with keys, strings, numbers and literals in distinct colours (no HTML injection: text nodes only). */
export function JsonView({ value, testId }: { value: unknown; testId?: string }) {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    if (m[1] !== undefined) {
      parts.push(
        <span key={at} className={m[2] ? 'json-key' : 'json-string'}>
          {m[1]}
        </span>,
      );
      if (m[2]) parts.push(m[2]);
    } else if (m[3] !== undefined) {
      parts.push(
        <span key={at} className="json-literal">
          {m[3]}
        </span>,
      );
    } else {
      parts.push(
        <span key={at} className="json-number">
          {m[4]}
        </span>,
      );
    }
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return (
    <pre className="json" data-testid={testId}>
      {parts}
    </pre>
  );
}
