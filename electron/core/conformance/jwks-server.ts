/**
 * The runner's JWKS, served where the bank under test fetches the service's keys (DESIGN.md
 * "Command line": `http://127.0.0.1:<jwks-port>/api/v1/.well-known/jwks.json`, spec 4.1 #3).
 * Every fetch is counted and timed, so the rotation case can say whether the bank came back for
 * the new kid.
 *
 * Threat model: loopback only; it serves public keys and nothing else (GET/HEAD of one path).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { derivedJwksUrl, JWKS_PATH } from '../common';
import { sendJson, startServer } from '../http';
import type { PublishedJwk } from '../sandbox';

export const DEFAULT_JWKS_PORT = 7303;
export const JWKS_HOST = '127.0.0.1';

/** Where the runner serves its JWKS on `port`: what the bank under test must trust. */
export function runnerJwksUrl(port: number): string {
  return derivedJwksUrl(`http://${JWKS_HOST}:${port}`);
}

export interface JwksServer {
  url: string;
  port: number;
  /** When (ms since the epoch) each fetch of the JWKS arrived. */
  readonly fetches: readonly number[];
  close(): Promise<void>;
}

/** Serves `keys()` as it is at each request. Rejects with the listen error (EADDRINUSE…). */
export async function startJwksServer(options: {
  port: number;
  keys: () => PublishedJwk[];
  now?: () => number;
}): Promise<JwksServer> {
  const fetches: number[] = [];
  const now = options.now ?? Date.now;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== JWKS_PATH) {
      sendJson(res, 404, { error: 'not_found', detail: `the runner serves only ${JWKS_PATH}` });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method_not_allowed', detail: 'GET only' }, { Allow: 'GET, HEAD' });
      return;
    }
    if (req.method === 'GET') fetches.push(now());
    sendJson(res, 200, { keys: options.keys() });
  };
  const server = await startServer(handle, { host: JWKS_HOST, port: options.port });
  return {
    url: runnerJwksUrl(server.port),
    port: server.port,
    fetches,
    close: () => server.close(),
  };
}
