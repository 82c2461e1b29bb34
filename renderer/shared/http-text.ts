/** HTTP requests and responses as the text an engineer reads in a log: start line, headers, pretty body. */

export interface HttpRequestLike {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface HttpResponseLike {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
}

/** JSON bodies indented; anything else as it came. */
export function prettyBody(body: string | null): string {
  if (body === null || body === '') return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function httpRequestText(r: HttpRequestLike): string {
  const body = prettyBody(r.body);
  return `${r.method} ${r.url}\n${headerLines(r.headers)}${body ? `\n${body}` : ''}`;
}

export function httpResponseText(r: HttpResponseLike): string {
  const body = prettyBody(r.body);
  return `HTTP ${r.status}\n${headerLines(r.headers)}${body ? `\n${body}` : ''}`;
}
