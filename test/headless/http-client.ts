/**
 * A tiny node:http client for tests that need what fetch will not do: arbitrary Host and Origin
 * headers, raw (un-normalised) paths, and a body sent in pieces.
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

export interface RawRequest {
  port: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export function request({
  port,
  path,
  method = 'GET',
  headers = {},
  body,
}: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { host: `127.0.0.1:${port}`, ...headers },
        agent: false,
      },
      (res) => collect(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function collect(res: http.IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text,
        json: () => JSON.parse(text) as unknown,
      });
    });
  });
}

/**
 * A POST in flight: headers with `Expect: 100-continue`, then half the body; `finish()` sends
 * the rest. `started` resolves once the server has answered 100 Continue, which node:http does
 * as it hands the request to its handler: from then on the request is provably in flight.
 */
export function slowPost(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: string,
  agent: http.Agent | false = false,
) {
  const half = Math.floor(body.length / 2);
  let req!: http.ClientRequest;
  const response = new Promise<RawResponse>((resolve, reject) => {
    req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: {
          host: `127.0.0.1:${port}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          expect: '100-continue',
          ...headers,
        },
      },
      (res) => collect(res).then(resolve, reject),
    );
    req.on('error', reject);
  });
  const started = new Promise<void>((resolve) => {
    req.once('continue', () => req.write(body.slice(0, half), () => resolve()));
    req.flushHeaders();
  });
  return { started, response, finish: () => req.end(body.slice(half)) };
}

/** An open event stream: everything received so far, and a way to wait for a piece of it. */
export function openEventStream(port: number, path: string, headers: Record<string, string> = {}) {
  let received = '';
  let ended = false;
  let status = 0;
  let contentType = '';
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const req = http.request(
    { host: '127.0.0.1', port, path, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } },
    (res) => {
      status = res.statusCode ?? 0;
      contentType = String(res.headers['content-type'] ?? '');
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        received += c;
        notify();
      });
      res.on('end', () => {
        ended = true;
        notify();
      });
    },
  );
  req.on('error', () => {
    ended = true;
    notify();
  });
  req.end();
  const until = (done: () => boolean, what: string, timeoutMs = 5000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}; received: ${JSON.stringify(received)}`)),
        timeoutMs,
      );
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return {
    get received() {
      return received;
    },
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    get ended() {
      return ended;
    },
    waitFor: (text: string) => until(() => received.includes(text), JSON.stringify(text)),
    waitForEnd: () => until(() => ended, 'the end of the stream'),
    /** Resolves once more than `length` characters have arrived. */
    waitForMoreThan: (length: number) =>
      until(() => received.length > length, `more than ${length} characters`),
    destroy: () => req.destroy(),
  };
}
