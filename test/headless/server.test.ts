import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TRANSPORT } from '../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { MAX_BODY_BYTES, startHeadlessServer, type HeadlessServer } from '../../electron/headless';
import { openEventStream, request, slowPost, type RawResponse } from './http-client';

let tmp: string;
let rendererDir: string;
let core: ConsoleCore;
let server: HeadlessServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-headless-'));
  rendererDir = path.join(tmp, 'renderer');
  await mkdir(path.join(rendererDir, 'assets'), { recursive: true });
  await writeFile(
    path.join(rendererDir, 'index.html'),
    '<!doctype html><title>test renderer</title><script src="./assets/app.js"></script>',
  );
  await writeFile(path.join(rendererDir, 'assets', 'app.js'), 'console.log("app");');
  await writeFile(path.join(rendererDir, 'assets', 'style.css'), 'body{}');
  await writeFile(path.join(rendererDir, '.env'), 'SECRET=dotfile');
  await writeFile(path.join(tmp, 'secret.txt'), 'SECRET=outside');
  await symlink(path.join(tmp, 'secret.txt'), path.join(rendererDir, 'assets', 'link.txt'));
  core = await createConsoleCore({ dataDir: path.join(tmp, 'data'), host: 'browser' });
  server = await startHeadlessServer({ core, host: '127.0.0.1', port: 0, rendererDir });
});

afterAll(async () => {
  await server?.close();
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

afterEach(() => {
  vi.restoreAllMocks();
});

const auth = () => ({ [TRANSPORT.tokenHeader]: server.token });
const call = (method: string, body?: string, headers: Record<string, string> = auth()) =>
  request({
    port: server.port,
    path: `${TRANSPORT.callPathPrefix}${method}`,
    method: 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
  });
const errorOf = (res: RawResponse) =>
  (res.json() as { ok: boolean; error: { code: string; message: string } }).error;

describe('startHeadlessServer', () => {
  it('binds 127.0.0.1 on a free port and hands out a token URL', () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(server.tokenUrl).toBe(`${server.url}?token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('uses a different token on every launch', async () => {
    const other = await startHeadlessServer({ core, port: 0, rendererDir });
    try {
      expect(other.token).not.toBe(server.token);
    } finally {
      await other.close();
    }
  });
});

describe('the access token', () => {
  it('refuses a call without a token with 401, touching nothing in the core', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    const handler = vi.spyOn(core.handlers, 'app.info');
    const res = await call('app.info', undefined, {});
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ ok: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(dispatch).not.toHaveBeenCalled();
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses a wrong token with 401, touching nothing', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    const wrong = server.token.slice(0, -1) + (server.token.endsWith('A') ? 'B' : 'A');
    for (const res of [
      await call('app.info', undefined, { [TRANSPORT.tokenHeader]: wrong }),
      await call('app.info', undefined, { [TRANSPORT.tokenHeader]: '' }),
      await call('app.info', undefined, { [TRANSPORT.tokenHeader]: `${server.token}, ${server.token}` }),
      await call('app.info', undefined, { [TRANSPORT.tokenHeader]: server.token.toLowerCase() }),
      await request({
        port: server.port,
        path: `${TRANSPORT.eventsPath}`,
        headers: { [TRANSPORT.tokenHeader]: wrong },
      }),
      await request({
        port: server.port,
        path: '/api/download/x',
        headers: { [TRANSPORT.tokenHeader]: wrong },
      }),
    ]) {
      expect(res.status).toBe(401);
      expect(errorOf(res).code).toBe('UNAUTHORIZED');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('answers a call with the token in the header with a 200 envelope', async () => {
    const res = await call('app.info');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      ok: true,
      value: expect.objectContaining({
        name: 'DETS Console',
        host: 'browser',
        dataDir: path.join(tmp, 'data'),
      }),
    });
  });

  it('takes the token from the header only: never from the query, never from a cookie', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    const viaQuery = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.info?${TRANSPORT.tokenQuery}=${server.token}`,
      method: 'POST',
    });
    expect(viaQuery.status).toBe(401);
    const streamViaQuery = await request({
      port: server.port,
      path: `${TRANSPORT.eventsPath}?${TRANSPORT.tokenQuery}=${server.token}`,
    });
    expect(streamViaQuery.status).toBe(401);
    // The cookie the previous version set (dets_console_token_<port>), right token and all.
    for (const cookie of [
      `dets_console_token_${server.port}=${server.token}`,
      `dets_console_token=${server.token}`,
      `${TRANSPORT.tokenHeader}=${server.token}`,
    ]) {
      expect((await call('app.info', undefined, { cookie })).status, cookie).toBe(401);
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('keeps the API behind the token however its path is spelled (escapes reach only the files)', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    for (const p of [
      '/%61pi/call/app.info',
      '/API/call/app.info',
      '/api%2Fcall/app.info',
      '//api/call/app.info',
    ]) {
      const res = await request({ port: server.port, path: p });
      expect([400, 401, 404], p).toContain(res.status);
      expect(res.text, p).not.toContain('"ok":true');
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('never sets a cookie, whatever it answers', async () => {
    const answers = [
      await call('app.info'),
      await call('app.info', undefined, {}),
      await request({ port: server.port, path: `/?${TRANSPORT.tokenQuery}=${server.token}` }),
      await request({ port: server.port, path: '/', headers: { accept: 'text/html' } }),
      await request({ port: server.port, path: '/assets/app.js' }),
      await request({ port: server.port, path: '/nothing' }),
    ];
    for (const res of answers) expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('Host and Origin (DNS rebinding, CSRF)', () => {
  it('refuses a Host that is not the bound address with 403, even with the token', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    for (const host of [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      `[::1]:${server.port}`,
    ]) {
      const res = await call('app.info', undefined, { ...auth(), host });
      expect(res.status, host).toBe(403);
      expect(errorOf(res).code).toBe('FORBIDDEN');
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('refuses a request without a Host header', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(`GET / HTTP/1.0\r\n${TRANSPORT.tokenHeader}: ${server.token}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.[01] 403 /);
    expect(raw).not.toContain('Set-Cookie');
  });

  it('accepts 127.0.0.1 and localhost at its port', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`]) {
      expect((await call('app.info', undefined, { ...auth(), host })).status, host).toBe(200);
    }
  });

  it('refuses a foreign Origin with 403 before looking at the token', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    for (const origin of [
      'http://evil.example',
      `http://127.0.0.1:${server.port + 1}`,
      `https://127.0.0.1:${server.port}`,
      'null',
    ]) {
      const res = await call('app.info', undefined, { ...auth(), origin });
      expect(res.status, origin).toBe(403);
      expect(errorOf(res).code).toBe('FORBIDDEN');
      const sse = await request({
        port: server.port,
        path: TRANSPORT.eventsPath,
        headers: { ...auth(), origin },
      });
      expect(sse.status, origin).toBe(403);
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('accepts its own Origin', async () => {
    const res = await call('app.info', undefined, { ...auth(), origin: `http://127.0.0.1:${server.port}` });
    expect(res.status).toBe(200);
  });
});

describe('calls', () => {
  it('returns the contract validation error for a bad argument, before any handler runs', async () => {
    const handler = vi.spyOn(core.handlers, 'inspector.inspect');
    const res = await call('inspector.inspect', JSON.stringify({ token: 5 }));
    expect(res.status).toBe(200);
    const body = res.json() as { ok: boolean; error: { code: string; message: string } };
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('BAD_ARGUMENT');
    expect(body.error.message).toContain('token');
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers an unknown method with 404 UNKNOWN_METHOD, without calling the core', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    for (const name of ['nope.nothing', 'app.info.extra', 'toString', '__proto__', '']) {
      const res = await call(name, '{}');
      expect(res.status, name).toBe(404);
      expect(errorOf(res).code).toBe('UNKNOWN_METHOD');
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    const big = JSON.stringify({ token: 'x'.repeat(MAX_BODY_BYTES) });
    const res = await call('inspector.inspect', big);
    expect(res.status).toBe(413);
    expect(errorOf(res).code).toBe('BAD_ARGUMENT');
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('refuses a chunked body that grows over 1 MiB with 413', async () => {
    const half = 'x'.repeat(MAX_BODY_BYTES / 2 + 10);
    const res = await new Promise<RawResponse>((resolve, reject) => {
      import('node:http').then(({ default: http }) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: `${TRANSPORT.callPathPrefix}inspector.inspect`,
            method: 'POST',
            agent: false,
            headers: { ...auth(), 'transfer-encoding': 'chunked' },
          },
          (r) => import('./http-client').then(({ collect }) => collect(r).then(resolve, reject)),
        );
        req.on('error', reject);
        req.write(half);
        req.write(half);
        req.end();
      }, reject);
    });
    expect(res.status).toBe(413);
  });

  it('answers invalid JSON with 400 BAD_ARGUMENT', async () => {
    const res = await call('app.info', '{"nope":');
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('BAD_ARGUMENT');
  });

  it('treats an empty body as no argument', async () => {
    expect((await call('app.info', '')).json()).toMatchObject({ ok: true });
  });

  it('allows only POST on call paths (405 with Allow)', async () => {
    const dispatch = vi.spyOn(core, 'dispatch');
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS']) {
      const res = await request({
        port: server.port,
        path: `${TRANSPORT.callPathPrefix}app.info`,
        method,
        headers: auth(),
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('answers unknown API paths with 404', async () => {
    const res = await request({ port: server.port, path: '/api/nothing', headers: auth() });
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe('NOT_FOUND');
  });
});

describe('the page and its assets', () => {
  it('serves index.html opened with ?token with a strict CSP, and sets no cookie', async () => {
    const res = await request({ port: server.port, path: `/?token=${server.token}` });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('test renderer');
    expect(res.headers['set-cookie']).toBeUndefined();
    const csp = String(res.headers['content-security-policy']);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain('unsafe');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('serves the page to a tab that presents nothing (a second tab), with no token in it', async () => {
    for (const target of ['/', '/index.html']) {
      const res = await request({ port: server.port, path: target, headers: { accept: 'text/html' } });
      expect(res.status, target).toBe(200);
      expect(res.text).toContain('test renderer');
      expect(res.text).not.toContain(server.token);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it('loads assets without any credential (public code), with their content types', async () => {
    const js = await request({ port: server.port, path: '/assets/app.js' });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.text).toBe('console.log("app");');
    const css = await request({ port: server.port, path: '/assets/style.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cross-origin-resource-policy']).toBe('same-origin');
    const head = await request({ port: server.port, path: '/assets/app.js', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    // A wrong token anywhere changes nothing for public files: they never look at one.
    const withWrong = await request({
      port: server.port,
      path: '/assets/app.js?token=wrong',
      headers: { [TRANSPORT.tokenHeader]: 'wrong', cookie: 'dets_console_token=wrong' },
    });
    expect(withWrong.status).toBe(200);
  });

  it('answers a missing file with 404 and a non-GET with 405', async () => {
    expect((await request({ port: server.port, path: '/assets/none.js', headers: auth() })).status).toBe(404);
    const post = await request({ port: server.port, path: '/', method: 'POST', headers: auth() });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('refuses path traversal, dot files and symlinks leading out of the renderer folder', async () => {
    for (const p of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%2fsecret.txt',
      '/..%5csecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/assets%00/app.js',
      '/%',
      '/.env',
      '/assets/link.txt',
      '//etc/passwd',
      `${rendererDir}/../secret.txt`,
    ]) {
      const res = await request({ port: server.port, path: p, headers: auth() });
      expect([400, 404], p).toContain(res.status);
      expect(res.text, p).not.toContain('SECRET');
      expect(res.text, p).not.toContain('root:');
    }
  });

  it('serves a page saying to run npm run build when the renderer is missing', async () => {
    const bare = await startHeadlessServer({ core, port: 0, rendererDir: path.join(tmp, 'not-built') });
    try {
      const res = await request({ port: bare.port, path: `/?token=${bare.token}` });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('npm run build');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(
        (
          await request({
            port: bare.port,
            path: '/assets/app.js',
            headers: { [TRANSPORT.tokenHeader]: bare.token },
          })
        ).status,
      ).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

describe('the event stream', () => {
  it('refuses a stream without the token header, whatever else it carries', async () => {
    const tries: Array<Record<string, string>> = [
      {},
      { cookie: `dets_console_token_${server.port}=${server.token}` },
      { accept: 'text/event-stream', authorization: `Bearer ${server.token}` },
    ];
    for (const headers of tries) {
      const res = await request({ port: server.port, path: TRANSPORT.eventsPath, headers });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(errorOf(res).code).toBe('UNAUTHORIZED');
    }
  });

  it('forwards core events as Server-Sent Events', async () => {
    const stream = openEventStream(server.port, TRANSPORT.eventsPath, auth());
    try {
      await stream.waitFor(': connected');
      expect(stream.status).toBe(200);
      expect(stream.contentType).toMatch(/^text\/event-stream/);
      const notice = { at: new Date().toISOString(), level: 'info' as const, message: 'hello\nstream' };
      core.events.emit('app.noticed', notice);
      await stream.waitFor(`event: app.noticed\ndata: ${JSON.stringify(notice)}\n\n`);
    } finally {
      stream.destroy();
    }
  });

  it('sends heartbeat comments and forgets clients that disconnect', async () => {
    const hb = await startHeadlessServer({ core, port: 0, rendererDir, heartbeatMs: 20 });
    try {
      const stream = openEventStream(hb.port, TRANSPORT.eventsPath, { [TRANSPORT.tokenHeader]: hb.token });
      await stream.waitFor(': heartbeat');
      stream.destroy();
      // After the disconnect, emitting must not throw nor write to the dead socket.
      await new Promise((r) => setTimeout(r, 50));
      core.events.emit('app.noticed', { at: new Date().toISOString(), level: 'info', message: 'nobody' });
    } finally {
      await hb.close();
    }
  });

  it('allows only GET on the stream', async () => {
    const res = await request({
      port: server.port,
      path: TRANSPORT.eventsPath,
      method: 'POST',
      headers: auth(),
    });
    expect(res.status).toBe(405);
  });
});

describe('close()', () => {
  it('stops accepting, lets an in-flight call finish, ends event streams, then resolves', async () => {
    const own = await startHeadlessServer({ core, port: 0, rendererDir });
    const stream = openEventStream(own.port, TRANSPORT.eventsPath, { [TRANSPORT.tokenHeader]: own.token });
    await stream.waitFor(': connected');
    // A keep-alive client: the server must not keep its socket open once the answer is out.
    const agent = new http.Agent({ keepAlive: true });
    const slow = slowPost(
      own.port,
      `${TRANSPORT.callPathPrefix}app.info`,
      { [TRANSPORT.tokenHeader]: own.token },
      '{ }',
      agent,
    );
    await slow.started;

    let closed = false;
    const closing = own.close().then(() => (closed = true));
    await stream.waitForEnd();
    // New connections are refused while the in-flight call is still open.
    await expect(
      request({ port: own.port, path: '/', headers: { [TRANSPORT.tokenHeader]: own.token } }),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(closed).toBe(false);

    slow.finish();
    const res = await slow.response;
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, value: { host: 'browser' } });
    expect(res.headers.connection).toBe('close');
    await closing;
    agent.destroy();
    expect(closed).toBe(true);
  });
});
