/**
 * The built renderer (dist/renderer) as static files: known content types, no way out of the
 * folder, and a plain page with the fix when the renderer has not been built.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentTypeFor } from '../core/http/renderer-policy';

/** The Content-Type for a renderer file (one table for both hosts). */
export const contentType = contentTypeFor;

/**
 * Where the built renderer is, relative to the running module: `dist/renderer` beside the
 * bundle's own folder (dist/cli/dets-console.js, dist/main/main.js), or the repository's
 * `dist/renderer` when running from source (vitest imports electron/headless/*.ts directly).
 * The first candidate holding an index.html wins; with none built, the bundle's own place.
 */
export function defaultRendererDir(moduleUrl: string = import.meta.url): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [path.resolve(here, '../renderer'), path.resolve(here, '../../dist/renderer')];
  const built = candidates.find((dir) => existsSync(path.join(dir, 'index.html')));
  if (built) return built;
  return path.basename(path.dirname(here)) === 'electron' ? candidates[1]! : candidates[0]!;
}

/** What the page request gets when dist/renderer has no index.html. */
export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>DETS Console: renderer not built</title></head>
<body>
<h1>DETS Console</h1>
<p>The browser-mode server is running, but the user interface has not been built yet.</p>
<p>Run <code>npm run build</code> in the DETS Console folder, then reload this page.</p>
</body>
</html>
`;

/**
 * A URL path as a file inside `root`, or undefined when it is not one: undecodable escapes,
 * NUL bytes, backslashes, `..` and dot-file segments are refused before touching the disk.
 */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s.startsWith('.'))) return undefined;
  const file = path.resolve(root, ...segments);
  return file.startsWith(path.resolve(root) + path.sep) ? file : undefined;
}

export type StaticResult = 'served' | 'not-found';

/**
 * Serves one file of the renderer for GET/HEAD. `/` and `/index.html` are the page; a missing
 * renderer turns the page into NOT_BUILT_PAGE. Symlinks may not lead out of the folder. Nothing
 * here depends on who asks: these are public files (the threat model in server.ts).
 */
export async function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  rendererDir: string,
  urlPath: string,
): Promise<StaticResult> {
  const isPage = urlPath === '/' || urlPath === '/index.html';
  const root = path.resolve(rendererDir);
  const requested = isPage ? path.join(root, 'index.html') : resolveInside(root, urlPath);
  if (!requested) return 'not-found';

  const file = await realFileInside(root, requested);
  if (!file) {
    if (!isPage) return 'not-found';
    send(req, res, 200, 'text/html; charset=utf-8', Buffer.from(NOT_BUILT_PAGE));
    return 'served';
  }

  res.writeHead(200, {
    'Content-Type': contentType(file.path),
    'Content-Length': file.size,
    // The page carries the token in its URL: never keep it; hashed assets may be revalidated.
    'Cache-Control': isPage ? 'no-store' : 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return 'served';
  }
  await pipeline(createReadStream(file.path), res);
  return 'served';
}

async function realFileInside(
  root: string,
  file: string,
): Promise<{ path: string; size: number } | undefined> {
  try {
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!realFile.startsWith(realRoot + path.sep)) return undefined;
    const info = await stat(realFile);
    return info.isFile() ? { path: realFile, size: info.size } : undefined;
  } catch {
    return undefined;
  }
}

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: Buffer): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': body.length,
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
