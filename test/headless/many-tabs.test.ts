/**
 * Many tabs without a cookie (issue 13 item 5, issue 24 item 9), at the HTTP level: a second tab
 * opens at the bare origin and must get the page and its assets with no credential (it reads
 * the token from the origin's storage afterwards, see test/e2e/many-tabs.test.ts), while its
 * calls and its event stream need the token header. Two consoles side by side on 127.0.0.1
 * each accept only their own token. Raw HTTP against the real headless server and core on
 * 127.0.0.1:0.
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
let beside: HeadlessServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-tabs-'));
  const rendererDir = path.join(tmp, 'renderer');
  await mkdir(path.join(rendererDir, 'assets'), { recursive: true });
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>tabs</title>');
  await writeFile(path.join(rendererDir, 'assets', 'app.js'), 'console.log("tabs");');
  core = await createConsoleCore({ dataDir: path.join(tmp, 'data'), host: 'browser' });
  server = await startHeadlessServer({ core, port: 0, rendererDir });
  beside = await startHeadlessServer({ core, port: 0, rendererDir });
});

afterAll(async () => {
  await server?.close();
  await beside?.close();
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

const origin = (s: HeadlessServer) => `http://127.0.0.1:${s.port}`;
const info = (s: HeadlessServer, headers: Record<string, string>) =>
  request({
    port: s.port,
    path: `${TRANSPORT.callPathPrefix}app.info`,
    method: 'POST',
    headers: { origin: origin(s), 'content-type': 'application/json', ...headers },
  });

describe('many tabs: the page needs no credential, the API needs the header', () => {
  it('serves a second tab the page and its assets with nothing presented, and sets no cookie', async () => {
    const first = await request({ port: server.port, path: `/?${TRANSPORT.tokenQuery}=${server.token}` });
    expect(first.status).toBe(200);
    expect(first.headers['set-cookie']).toBeUndefined();

    const page = await request({ port: server.port, path: '/', headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>tabs</title>');
    const asset = await request({ port: server.port, path: '/assets/app.js' });
    expect(asset.status).toBe(200);
    for (const res of [page, asset]) expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('answers the second tab once it sends the stored token in the header: calls and the stream', async () => {
    const header = { [TRANSPORT.tokenHeader]: server.token };
    const answer = await info(server, header);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ ok: true, value: { host: 'browser' } });
    const stream = openEventStream(server.port, TRANSPORT.eventsPath, header);
    try {
      await stream.waitFor(': connected');
      expect(stream.status).toBe(200);
      expect(stream.contentType).toMatch(/^text\/event-stream/);
    } finally {
      stream.destroy();
    }
  });

  it('refuses the API to a tab that presents nothing, or only a cookie', async () => {
    const tries: Array<Record<string, string>> = [
      {},
      { cookie: `dets_console_token_${server.port}=${server.token}` },
    ];
    for (const headers of tries) {
      const answer = await info(server, headers);
      expect(answer.status).toBe(401);
      expect(answer.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      const stream = await request({ port: server.port, path: TRANSPORT.eventsPath, headers });
      expect(stream.status).toBe(401);
    }
  });

  it('keeps two consoles side by side apart: each accepts only its own token', async () => {
    expect(beside.token).not.toBe(server.token);
    expect((await info(beside, { [TRANSPORT.tokenHeader]: beside.token })).status).toBe(200);
    expect((await info(beside, { [TRANSPORT.tokenHeader]: server.token })).status).toBe(401);
    expect((await info(server, { [TRANSPORT.tokenHeader]: beside.token })).status).toBe(401);
    expect((await info(server, { [TRANSPORT.tokenHeader]: server.token })).status).toBe(200);
  });

  it('keeps the Host and Origin checks in front of the token', async () => {
    const header = { [TRANSPORT.tokenHeader]: server.token };
    const rebound = await request({
      port: server.port,
      path: '/',
      headers: { ...header, host: `evil.example:${server.port}` },
    });
    expect(rebound.status).toBe(403);
    const reboundApi = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { ...header, host: `evil.example:${server.port}` },
    });
    expect(reboundApi.status).toBe(403);
    // The console beside it is same-site but not same-origin.
    expect((await info(server, { ...header, origin: origin(beside) })).status).toBe(403);
  });
});
