// @vitest-environment jsdom
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleError, type ConsoleApi } from '../../../electron/contract';
import { TOKEN_STORAGE_KEY } from '../../../renderer/api/access-token';
import { resolveClient, type ConsoleClient } from '../../../renderer/api/client';

declare const jsdom: { reconfigure(settings: { url: string }): void };

/** A real loopback host that refuses every token: what a restarted `serve` answers a stale tab. */
let host: Server;
let hostUrl: string;
let seen: IncomingMessage[] = [];
const clients: ConsoleClient[] = [];

beforeAll(async () => {
  host = createServer((req, res) => {
    seen.push(req);
    res.writeHead(401, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: false, error: { code: 'UNAUTHORIZED', message: 'wrong token' } }));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/`;
  jsdom.reconfigure({ url: hostUrl });
});

afterAll(async () => {
  host.closeAllConnections();
  await new Promise<void>((resolve) => host.close(() => resolve()));
});

afterEach(() => {
  for (const c of clients.splice(0)) (c.events as { close?: () => void }).close?.();
  delete window.detsConsole;
  localStorage.clear();
  sessionStorage.clear();
  history.replaceState(null, '', '/');
  seen = [];
});

function resolve(onUnauthorized?: (m: string) => void) {
  const r = resolveClient(window, onUnauthorized);
  if (r.kind === 'ready') clients.push(r.client);
  return r;
}

describe('resolveClient', () => {
  it('uses the preload facade in the desktop app, reviving bridged error data into ConsoleErrors', async () => {
    const on = () => () => undefined;
    const preload = {
      on,
      // What arrives through contextBridge: plain error data, not an Error.
      app: { info: () => Promise.reject({ code: 'FORBIDDEN', message: 'refused' }) },
    } as unknown as ConsoleApi;
    window.detsConsole = preload;
    const r = resolveClient(window);
    expect(r.kind).toBe('ready');
    if (r.kind === 'ready') {
      expect(r.client.mode).toBe('desktop');
      expect(r.client.api.on).toBe(on);
      const err = await r.client.api.app.info().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConsoleError);
      expect(err).toMatchObject({ code: 'FORBIDDEN', message: 'refused' });
      expect(r.client.events.getSnapshot().status).toBe('connected');
    }
  });

  it('in a browser takes the token from the address bar into localStorage and removes it from there', () => {
    history.replaceState(null, '', '/?token=s3cret#/inspector');
    const r = resolve();
    expect(r.kind).toBe('ready');
    if (r.kind === 'ready') expect(r.client.mode).toBe('browser');
    expect(window.location.search).toBe('');
    expect(window.location.hash).toBe('#/inspector');
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBe('s3cret');
    expect(sessionStorage.length).toBe(0);
    expect(document.cookie).toBe('');
  });

  it('in a second tab without the link uses the token the first one stored', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, 'from-the-first-tab');
    const r = resolve();
    expect(r.kind).toBe('ready');
    if (r.kind !== 'ready') return;
    await r.client.api.app.info().catch(() => undefined);
    const call = seen.find((req) => req.url === '/api/call/app.info');
    expect(call?.headers['x-dets-token']).toBe('from-the-first-tab');
  });

  it('without a token anywhere says so: no client, no request', () => {
    expect(resolve().kind).toBe('no-token');
    expect(seen).toEqual([]);
  });

  it('forgets a token the host refuses (401) and tells the app why', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, 'stale');
    const refused: string[] = [];
    const r = resolve((m) => refused.push(m));
    if (r.kind !== 'ready') throw new Error('expected a client');
    const err = await r.client.api.app.info().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(refused).toContain('wrong token');
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
    // A reload now finds no token, and gets the access-link page instead of a 401 loop.
    expect(resolve().kind).toBe('no-token');
  });
});
