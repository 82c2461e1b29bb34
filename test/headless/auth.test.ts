import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import {
  allowedHosts,
  createToken,
  isApiPath,
  isLoopbackAddress,
  isSameOrigin,
  presentedToken,
  tokenMatches,
} from '../../electron/headless/auth';
import { openCommand } from '../../electron/headless/open-browser';
import { contentType, defaultRendererDir, resolveInside } from '../../electron/headless/static-files';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

describe('the access token', () => {
  it('is 32 random bytes in base64url, new every time', () => {
    const a = createToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(createToken()).not.toBe(a);
  });

  it('matches only itself, whatever the candidate length', () => {
    const t = createToken();
    expect(tokenMatches(t, t)).toBe(true);
    expect(tokenMatches(t, t.slice(1))).toBe(false);
    expect(tokenMatches(t, `${t}x`)).toBe(false);
    expect(tokenMatches(t, '')).toBe(false);
    expect(tokenMatches(t, undefined)).toBe(false);
    expect(tokenMatches(t, 'x'.repeat(100_000))).toBe(false);
  });

  it('is read from the X-DETS-Token header alone, never from a cookie or another header', () => {
    const req = (headers: IncomingMessage['headers']) => ({ headers }) as IncomingMessage;
    expect(presentedToken(req({ 'x-dets-token': 'abc' }))).toBe('abc');
    expect(
      presentedToken(req({ cookie: 'dets_console_token_7300=abc; dets_console_token=abc' })),
    ).toBeUndefined();
    expect(presentedToken(req({ authorization: 'Bearer abc' }))).toBeUndefined();
    expect(presentedToken(req({}))).toBeUndefined();
  });

  it('guards every path under /api and nothing else', () => {
    for (const p of ['/api', '/api/', '/api/call/app.info', '/api/events', '/api/download/t', '/api/x'])
      expect(isApiPath(p), p).toBe(true);
    for (const p of ['/', '/index.html', '/assets/app.js', '/apix', '/API/events'])
      expect(isApiPath(p), p).toBe(false);
  });
});

describe('Host and Origin rules', () => {
  it('accepts the bound loopback address and localhost at the port only', () => {
    expect([...allowedHosts('127.0.0.1', 7300)].sort()).toEqual(['127.0.0.1:7300', 'localhost:7300']);
    expect([...allowedHosts('::1', 7300)].sort()).toEqual(['[::1]:7300', 'localhost:7300']);
    expect(allowedHosts('127.0.0.1', 80).has('127.0.0.1')).toBe(true);
  });

  it('accepts interface addresses (IP literals, which cannot be rebound) for a wildcard bind', () => {
    const hosts = allowedHosts('0.0.0.0', 7300, ['127.0.0.1', '192.168.1.20', 'fe80::1']);
    expect(hosts.has('192.168.1.20:7300')).toBe(true);
    expect(hosts.has('[fe80::1]:7300')).toBe(true);
    expect(hosts.has('evil.example:7300')).toBe(false);
  });

  it('counts only the very same origin as same-origin', () => {
    expect(isSameOrigin('http://127.0.0.1:7300', '127.0.0.1:7300')).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:7301', '127.0.0.1:7300')).toBe(false);
    expect(isSameOrigin('https://127.0.0.1:7300', '127.0.0.1:7300')).toBe(false);
    expect(isSameOrigin('null', '127.0.0.1:7300')).toBe(false);
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com'])
      expect(isLoopbackAddress(h), h).toBe(false);
  });
});

describe('static files', () => {
  it('names content types and stays inside the root', () => {
    expect(contentType('a/index.html')).toBe('text/html; charset=utf-8');
    expect(contentType('a/x.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentType('a/x.unknown')).toBe('application/octet-stream');
    expect(resolveInside('/srv/r', '/assets/app.js')).toBe(path.resolve('/srv/r/assets/app.js'));
    for (const p of [
      '/../x',
      '/a/%2e%2e/%2e%2e/x',
      '/a\\..\\x',
      '/%00',
      '/%zz',
      '/.git/config',
      'relative',
    ]) {
      expect(resolveInside('/srv/r', p), p).toBeUndefined();
    }
  });

  it('finds dist/renderer from the bundle folder and from source', () => {
    const root = path.resolve('/repo');
    expect(defaultRendererDir(pathToFileURL(path.join(root, 'dist/cli/dets-console.js')).href)).toBe(
      path.join(root, 'dist/renderer'),
    );
    expect(defaultRendererDir(pathToFileURL(path.join(root, 'electron/headless/static-files.ts')).href)).toBe(
      path.join(root, 'dist/renderer'),
    );
  });
});

describe('openCommand', () => {
  it('uses the platform opener', () => {
    expect(openCommand('http://x/', 'linux')).toEqual({ command: 'xdg-open', args: ['http://x/'] });
    expect(openCommand('http://x/', 'darwin')).toEqual({ command: 'open', args: ['http://x/'] });
    expect(openCommand('http://x/', 'win32')).toEqual({
      command: 'cmd',
      args: ['/c', 'start', '""', 'http://x/'],
    });
  });
});
