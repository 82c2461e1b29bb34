import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { protocol } from './fake-electron';
import {
  CONTENT_SECURITY_POLICY,
  createRendererHandler,
  registerAppScheme,
  serveRenderer,
} from '../../electron/main/protocol';
import { createDownloads } from '../../electron/core/downloads';

vi.mock('electron', () => import('./fake-electron'));

const SECRET = 'PRIVATE KEY MATERIAL';
let base: string;
let root: string;
let handler: (request: Request) => Promise<Response>;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'dets-protocol-'));
  root = join(base, 'renderer');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><title>DETS Console</title>');
  await writeFile(join(root, 'assets', 'app.js'), 'console.log(1)');
  await writeFile(join(root, 'assets', 'app.css'), 'body{}');
  await writeFile(join(root, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(root, 'assets', 'icon.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(join(root, 'assets', 'data.bin'), Buffer.from([1, 2, 3]));
  await writeFile(join(base, 'secret.txt'), SECRET);
  await writeFile(join(base, 'renderer-evil.txt'), SECRET); // shares the root's name as a prefix
  await symlink(join(base, 'secret.txt'), join(root, 'assets', 'link.txt'));
  handler = createRendererHandler(root);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

const get = (url: string, init?: RequestInit) => handler(new Request(url, init));

describe('the app:// scheme', () => {
  it('is registered as standard and secure, without bypassing CSP', () => {
    registerAppScheme(protocol);
    expect(protocol.registerSchemesAsPrivileged).toHaveBeenCalledTimes(1);
    const [scheme] = protocol.privileged;
    expect(scheme).toMatchObject({ scheme: 'app', privileges: { standard: true, secure: true } });
    expect(scheme!.privileges!.bypassCSP).toBeFalsy();
    expect(scheme!.privileges!.corsEnabled).toBeFalsy();
  });

  it('serves files with their content type and the strict CSP', async () => {
    const cases: Array<[string, string, string]> = [
      ['app://console/', 'text/html; charset=utf-8', '<!doctype html>'],
      ['app://console/index.html', 'text/html; charset=utf-8', '<!doctype html>'],
      ['app://console/assets/app.js', 'text/javascript; charset=utf-8', 'console.log(1)'],
      ['app://console/assets/app.css', 'text/css; charset=utf-8', 'body{}'],
      ['app://console/assets/logo.svg', 'image/svg+xml', '<svg'],
      ['app://console/assets/icon.png', 'image/png', '\u0089PNG'.slice(1)],
      ['app://console/assets/data.bin', 'application/octet-stream', ''],
      ['app://console/index.html?x=1#frag', 'text/html; charset=utf-8', '<!doctype html>'],
    ];
    for (const [url, type, start] of cases) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toBe(type);
      expect(res.headers.get('content-security-policy'), url).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(await res.text(), url).toContain(start);
    }
  });

  it('has the exact policy the design asks for', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
  });

  it('never serves a file outside the renderer folder', async () => {
    const attempts = [
      'app://console/../secret.txt',
      'app://console/%2e%2e/secret.txt',
      'app://console/..%2fsecret.txt',
      'app://console/assets%2f..%2f..%2fsecret.txt',
      'app://console/%2e%2e%2f%2e%2e%2fsecret.txt',
      'app://console/..%5csecret.txt',
      'app://console/assets/..%5c..%5csecret.txt',
      'app://console/%2fetc%2fpasswd',
      'app://console/..%2frenderer-evil.txt',
      'app://console/assets/link.txt', // a symlink pointing out
      'app://console/index.html%00.png',
      'app://console/%E0%A4%A',
      'app://console/assets', // a folder
      'app://console/missing.js',
      'app://other/index.html',
    ];
    for (const url of attempts) {
      const res = await get(url);
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('content-security-policy'), url).toBe(CONTENT_SECURITY_POLICY);
      const body = await res.text();
      expect(body, url).not.toContain(SECRET);
      expect(body, url).not.toContain('root:');
    }
    expect((await get('app://console/..%2fsecret.txt')).status).toBe(403);
    expect((await get('app://console/assets/link.txt')).status).toBe(403);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('app://console/index.html', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get('app://console/index.html', { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
  });

  it('refuses requests that web content of another origin initiated', async () => {
    const request = (initiatorOrigin: string) => {
      const r = new Request('app://console/assets/app.js');
      Object.defineProperty(r, 'initiatorOrigin', { value: initiatorOrigin });
      return handler(r);
    };
    expect((await request('https://evil.example')).status).toBe(403);
    expect((await request('null')).status).toBe(403);
    expect((await request('app://console')).status).toBe(200);
  });

  it('answers 404 while the renderer is not built', async () => {
    const res = await createRendererHandler(join(base, 'not-built'))(new Request('app://console/'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('is installed with protocol.handle under the app scheme', async () => {
    serveRenderer(protocol, root);
    const installed = protocol.handlers.get('app')!;
    const res = await installed(new Request('app://console/index.html'));
    expect(res.status).toBe(200);
  });
});

describe("app://console/api/download/<ticket>: the core's one-time downloads", () => {
  const offer = () => {
    const downloads = createDownloads();
    const { ticket } = downloads.offer({
      content: '[{"obj":"DE1","key":"the-secret-key"}]\n',
      filename: 'dets-console-users.json',
      mime: 'application/json',
    });
    return { downloads, url: `app://console/api/download/${ticket}` };
  };

  it('serves the file once, as an attachment never cached, with the strict CSP', async () => {
    const { downloads, url } = offer();
    serveRenderer(protocol, root, downloads);
    const installed = protocol.handlers.get('app')!;
    const fromPage = new Request(url);
    Object.defineProperty(fromPage, 'initiatorOrigin', { value: 'app://console' });
    const res = await installed(fromPage);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('[{"obj":"DE1","key":"the-secret-key"}]\n');
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': 'attachment; filename="dets-console-users.json"',
      'cache-control': 'no-store',
      'content-security-policy': CONTENT_SECURITY_POLICY,
    });
    const again = await installed(new Request(url));
    expect(again.status).toBe(404);
    expect(await again.text()).toMatch(/already taken or has expired: export again/);
  });

  it('keeps the ticket from HEAD, other methods and other origins; an unknown ticket is 404', async () => {
    const { downloads, url } = offer();
    const handle = createRendererHandler(root, downloads);
    expect((await handle(new Request(url, { method: 'HEAD' }))).status).toBe(405);
    expect((await handle(new Request(url, { method: 'POST' }))).status).toBe(405);
    const foreign = new Request(url);
    Object.defineProperty(foreign, 'initiatorOrigin', { value: 'https://evil.example' });
    expect((await handle(foreign)).status).toBe(403);
    expect((await handle(new Request('app://console/api/download/unknown'))).status).toBe(404);
    // None of those spent it.
    const res = await handle(new Request(url));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('the-secret-key');
  });

  it('is a 404 when the handler was given no downloads', async () => {
    const { url } = offer();
    const res = await createRendererHandler(root)(new Request(url));
    expect(res.status).toBe(404);
  });
});
