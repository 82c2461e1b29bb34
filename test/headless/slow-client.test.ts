/**
 * The browser-mode server keeps the listener bounds (DESIGN.md "Bank endpoints": every listener
 * bounds header and request time): a client that trickles its headers one byte a second is
 * answered 408 and dropped, while other clients are served meanwhile and a long-lived event
 * stream (whose request is complete) is not cut. The bounds are shortened for the test through
 * the server's `bounds` option; by default they are the production ones, as the last test shows.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { createBoundedServer, LISTENER_BOUNDS } from '../../electron/core/http/listener';
import { startHeadlessServer, type HeadlessServer } from '../../electron/headless';
import { openEventStream, request } from './http-client';

/** Short bounds so the test takes seconds, not the production 10 s. */
const BOUNDS = { headersTimeoutMs: 2_000, requestTimeoutMs: 2_000, checkIntervalMs: 200 };
/** The slow client gives up on its own after this many bytes, dropped or not. */
const MAX_SLOW_BYTES = 20;

let tmp: string;
let core: ConsoleCore;
let server: HeadlessServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-headless-slow-'));
  const rendererDir = path.join(tmp, 'renderer');
  await mkdir(rendererDir, { recursive: true });
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>test renderer</title>');
  core = await createConsoleCore({ dataDir: path.join(tmp, 'data'), host: 'browser' });
  server = await startHeadlessServer({
    core,
    host: '127.0.0.1',
    port: 0,
    rendererDir,
    heartbeatMs: 100,
    bounds: BOUNDS,
  });
});

afterAll(async () => {
  await server?.close();
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

interface SlowClient {
  /** Resolves when the server has closed the connection, or the client gave up. */
  done: Promise<{ droppedByServer: boolean; bytesSent: number; answer: string }>;
  /** Resolves once the first byte is out. */
  started: Promise<void>;
}

/** A raw socket that sends a request's headers one byte per second, never finishing them. */
function slowHeaderClient(port: number): SlowClient {
  const head = `GET /?${TRANSPORT.tokenQuery}=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${'x'.repeat(64)}`;
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  let bytesSent = 0;
  let droppedByServer = false;
  let timer: NodeJS.Timeout | undefined;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => undefined); // a write racing the server's close: the close is what counts
  const done = new Promise<{ droppedByServer: boolean; bytesSent: number; answer: string }>((resolve) => {
    const finish = () => {
      clearInterval(timer);
      resolve({ droppedByServer, bytesSent, answer });
    };
    socket.on('end', () => {
      droppedByServer = true;
      socket.destroy();
    });
    socket.on('close', finish);
  });
  socket.on('connect', () => {
    const sendOne = () => {
      if (bytesSent >= MAX_SLOW_BYTES || bytesSent >= head.length || socket.destroyed) {
        socket.destroy(); // bounded: give up rather than trickle forever
        return;
      }
      socket.write(head[bytesSent] as string);
      bytesSent += 1;
      if (bytesSent === 1) markStarted();
    };
    sendOne();
    timer = setInterval(sendOne, 1_000);
  });
  return { done, started };
}

describe('the browser-mode server and slow clients', () => {
  it('drops a client that sends one header byte per second (408), serving others meanwhile', async () => {
    const stream = openEventStream(server.port, TRANSPORT.eventsPath, {
      [TRANSPORT.tokenHeader]: server.token,
    });
    await stream.waitFor(': connected');

    const slow = slowHeaderClient(server.port);
    await slow.started;
    // While the slow client holds its connection, another one is answered.
    const info = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: server.token },
    });
    expect(info.status).toBe(200);
    expect((info.json() as { ok: boolean }).ok).toBe(true);

    const dropped = await slow.done;
    expect(dropped.droppedByServer).toBe(true);
    expect(dropped.bytesSent).toBeLessThan(MAX_SLOW_BYTES);
    expect(dropped.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);

    // The event stream, open since before the slow client came and past the request bound by now,
    // is a complete request: it is not cut, and keeps receiving.
    const mark = stream.received.length;
    await stream.waitForMoreThan(mark);
    expect(stream.ended).toBe(false);
    stream.destroy();

    // And the server still serves after the drop.
    const page = await request({ port: server.port, path: `/?${TRANSPORT.tokenQuery}=${server.token}` });
    expect(page.status).toBe(200);
  });

  it('uses the production bounds unless told otherwise', () => {
    const plain = createBoundedServer();
    expect(plain.headersTimeout).toBe(LISTENER_BOUNDS.headersTimeoutMs);
    expect(plain.requestTimeout).toBe(LISTENER_BOUNDS.requestTimeoutMs);
    expect(plain.keepAliveTimeout).toBe(LISTENER_BOUNDS.keepAliveTimeoutMs);
    expect(LISTENER_BOUNDS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      checkIntervalMs: 1_000,
    });
  });
});
