/**
 * One HTTP request made with node:http, its headers exactly as given: fetch adds headers of its
 * own (a Content-Type for a string body, Sec-Fetch-Mode) and cannot send others, and the tests of
 * what a listener does with a missing Content-Type or a page's Origin header need neither.
 */
import http from 'node:http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Sends `method target` to `base` (an http://127.0.0.1:port URL) with exactly `headers` plus a
 * Content-Length, and reads the whole answer; rejects after `timeoutMs` without one.
 *
 * @example
 * const r = await rawRequest(url, 'POST', '/api/svc/notify/pay-in', { Origin: 'https://x' }, '{}');
 */
export function rawRequest(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body = '',
  options: { agent?: http.Agent; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent: options.agent,
        host: url.hostname,
        port: url.port,
        method,
        path: target,
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${method} ${target} in time`)));
    req.on('error', reject);
    req.end(body);
  });
}
