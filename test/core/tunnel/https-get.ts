import https from 'node:https';

/** One HTTPS request trusting `ca` (PEM); resolves to the status and body. */
export function httpsCall(
  url: string,
  {
    ca,
    method = 'GET',
    body,
    headers = {},
  }: { ca: string; method?: string; body?: string; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, ca, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
