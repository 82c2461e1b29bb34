/**
 * Issue 13 item 5, many tabs: once the access link (with ?token=) has been opened, the host's
 * HttpOnly, SameSite=Strict cookie for its port lets every later request in without the token,
 * the way a second tab's requests arrive; a wrong cookie is refused; Host and Origin checks still
 * come first. Raw HTTP against the real headless server and core on 127.0.0.1:0.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { startHeadlessServer, type HeadlessServer } from '../../electron/headless';
import { openEventStream, request } from './http-client';

let tmp: string;
let core: ConsoleCore;
let server: HeadlessServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-tabs-'));
  const rendererDir = path.join(tmp, 'renderer');
  await mkdir(rendererDir, { recursive: true });
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>tabs</title>');
  core = await createConsoleCore({ dataDir: path.join(tmp, 'data'), host: 'browser' });
  server = await startHeadlessServer({ core, port: 0, rendererDir });
});

afterAll(async () => {
  await server?.close();
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

/** The `name=value` pair a browser would send back from a Set-Cookie header. */
function cookiePair(setCookie: string[] | undefined): string {
  expect(setCookie).toHaveLength(1);
  return setCookie![0]!.split(';')[0]!;
}

describe('many tabs: the access link leaves a cookie that opens every later tab', () => {
  it('sets the cookie on the first request with ?token, then serves requests carrying only it', async () => {
    const first = await request({ port: server.port, path: `/?${TRANSPORT.tokenQuery}=${server.token}` });
    expect(first.status).toBe(200);
    const setCookie = first.headers['set-cookie']!;
    expect(setCookie[0]).toMatch(new RegExp(`^${TRANSPORT.tokenCookie}_${server.port}=`));
    expect(setCookie[0]).toContain('HttpOnly');
    expect(setCookie[0]).toContain('SameSite=Strict');
    expect(setCookie[0]).toContain('Path=/');
    const cookie = cookiePair(setCookie);

    // A second tab: the page, a call and the event stream, with the cookie and no token.
    const page = await request({ port: server.port, path: '/', headers: { cookie, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>tabs</title>');
    const origin = `http://127.0.0.1:${server.port}`;
    const info = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { cookie, origin, 'content-type': 'application/json' },
    });
    expect(info.status).toBe(200);
    expect(info.json()).toMatchObject({ ok: true, value: { host: 'browser' } });
    const stream = openEventStream(server.port, TRANSPORT.eventsPath, { cookie });
    await stream.waitForMoreThan(0);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    stream.destroy();
  });

  it('refuses a wrong cookie: 401 for the API, a help page for a browser tab', async () => {
    const wrong = `${TRANSPORT.tokenCookie}_${server.port}=${'x'.repeat(43)}`;
    const api = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { cookie: wrong },
    });
    expect(api.status).toBe(401);
    expect(api.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    const tab = await request({
      port: server.port,
      path: '/',
      headers: { cookie: wrong, accept: 'text/html' },
    });
    expect(tab.status).toBe(401);
    expect(tab.headers['content-type']).toMatch(/^text\/html/);
    expect(tab.text).toContain('needs its access link');
    expect(tab.text).not.toContain(server.token);
    expect(tab.headers['set-cookie']).toBeUndefined();
  });

  it('keeps the Host and Origin checks in front of the cookie', async () => {
    const cookie = `${TRANSPORT.tokenCookie}_${server.port}=${server.token}`;
    const rebound = await request({
      port: server.port,
      path: '/',
      headers: { cookie, host: `evil.example:${server.port}` },
    });
    expect(rebound.status).toBe(403);
    const foreign = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { cookie, origin: 'http://127.0.0.1:1' },
    });
    expect(foreign.status).toBe(403);
  });
});
