/**
 * Serves the built renderer (dist/renderer) at `app://console/`, and the core's one-time
 * downloads at `app://console/api/download/<ticket>` (the same route and rule as headless:
 * core/downloads.ts downloadAnswer).
 *
 * Threat model: the page is our own code, but anything it requests through this scheme reaches
 * the disk. A request must never read outside the renderer folder (`..`, `%2e%2e`, encoded
 * slashes or backslashes, NUL bytes, symlinks pointing out), must only come from the app itself,
 * and every answer carries the strict Content-Security-Policy, so even an injected script tag
 * cannot load code from anywhere else. A download ticket is spent only by a GET from the app's own
 * page, and its file (customers with their secret keys) is never cached. Why a custom scheme rather than `file://`: a file: page
 * can read any local file the user can, and all file: URLs share one origin.
 */
import type { Protocol } from 'electron';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { APP_HOST, APP_ORIGIN, APP_SCHEME } from './app-origin';
import { CONTENT_SECURITY_POLICY, contentTypeFor } from '../core/http/renderer-policy';
import { downloadAnswer, downloadTicket, type Downloads } from '../core/downloads';

export { CONTENT_SECURITY_POLICY, contentTypeFor };

/** Headers every answer of the scheme carries, errors included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Must run before `app` is ready. `standard` gives the scheme real origins (so `'self'`, relative
 * URLs and ES modules work), `secure` makes it a secure context; it does not bypass CSP.
 */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

function refuse(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' },
  });
}

function isInside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The scheme's request handler over `rootDir`, kept free of Electron so it is tested as is.
 * `/` serves index.html; a missing file is a 404 (the renderer routes inside one page);
 * `/api/download/<ticket>` is one of `downloads`, taken once.
 */
export function createRendererHandler(
  rootDir: string,
  downloads?: Pick<Downloads, 'take'>,
): (request: Request) => Promise<Response> {
  let realRoot: Promise<string> | undefined;
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, 'method not allowed');
    // Electron sets initiatorOrigin on requests made by web content: only the app's own page
    // may fetch from it (absent for the window's own navigation).
    const initiator = (request as Request & { initiatorOrigin?: string }).initiatorOrigin;
    if (initiator !== undefined && initiator !== APP_ORIGIN) return refuse(403, 'forbidden');

    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return refuse(400, 'bad url');
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return refuse(404, 'not found');

    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return refuse(400, 'bad path');
    }
    if (path.includes('\0') || path.includes('\\')) return refuse(400, 'bad path');
    const ticket = downloadTicket(url.pathname);
    if (ticket !== null) {
      // A HEAD must not spend the ticket.
      if (request.method !== 'GET') return refuse(405, 'method not allowed');
      const answer = downloadAnswer(downloads, ticket);
      if (answer.status === 404) return refuse(404, answer.message);
      return new Response(new Uint8Array(answer.body), {
        status: 200,
        headers: { ...SECURITY_HEADERS, ...answer.headers },
      });
    }
    if (path.endsWith('/')) path += 'index.html';

    realRoot ??= realpath(rootDir);
    let root: string;
    try {
      root = await realRoot;
    } catch {
      realRoot = undefined;
      return refuse(404, 'renderer not built');
    }
    const file = join(root, path);
    if (!isInside(root, file)) return refuse(403, 'forbidden');

    let real: string;
    try {
      real = await realpath(file);
      if (!isInside(root, real)) return refuse(403, 'forbidden');
      if (!(await stat(real)).isFile()) return refuse(404, 'not found');
    } catch {
      return refuse(404, 'not found');
    }
    const body = request.method === 'HEAD' ? null : await readFile(real);
    return new Response(body, {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'Content-Type': contentTypeFor(real), 'Cache-Control': 'no-cache' },
    });
  };
}

/** Serves `rootDir` (and `downloads`) at app://console/ on the default session; call once app is ready. */
export function serveRenderer(
  protocol: Pick<Protocol, 'handle'>,
  rootDir: string,
  downloads?: Pick<Downloads, 'take'>,
): void {
  const handler = createRendererHandler(rootDir, downloads);
  protocol.handle(APP_SCHEME, (request) =>
    handler(request).catch((err: unknown) => {
      console.error(
        `dets-console: ${APP_ORIGIN} handler failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return refuse(500, 'internal error');
    }),
  );
}
