/**
 * Replay against a listener serving a self-signed certificate (`serve --tls-cert/--tls-key`,
 * issue 14): the console trusts the certificate its own listener serves, exactly that one, so the
 * replay goes through over HTTPS. Certificates made with openssl.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../../electron/core/http/exchange';
import { startServer } from '../../../electron/core/http/listener';
import { makeCerts, type TestCerts } from '../tunnel/certs';
import { httpsCall } from '../tunnel/https-get';
import { cleanup, eventCount, lastEvent, serviceJwt, startBank, type BankFixture } from './helpers';

let dir = '';
let certs: TestCerts;
let tls: { cert: string; key: string };
let fx: BankFixture;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'dets-replay-tls-'));
  certs = await makeCerts(dir);
  tls = { cert: await readFile(certs.cert, 'utf8'), key: await readFile(certs.key, 'utf8') };
  fx = await startBank({ tls });
});
afterAll(async () => {
  await cleanup();
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('bank.replay over HTTPS', () => {
  it('replays a stored callback through a listener with a self-signed certificate', async () => {
    expect(fx.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const first = await httpsCall(`${fx.url}/user_auth`, {
      ca: tls.cert,
      headers: { 'X-Session-ID': await serviceJwt(fx.key) },
    });
    expect(first.status).toBe(200);
    await eventCount(fx.store, 'callback', 1);
    const stored = await lastEvent(fx.store, 'callback');

    const replayed = await fx.bank.replay(stored.id);
    expect(replayed.id).not.toBe(stored.id);
    expect(replayed).toMatchObject({ kind: 'callback', path: '/user_auth', status: 200, failed_check: null });
    expect(replayed).toMatchObject({ obj: stored.obj, sub: stored.sub });
  });

  it('trusts only the pinned certificate: another self-signed one is refused before anything is sent', async () => {
    let reached = 0;
    const other = await startServer(
      (_req, res) => {
        reached += 1;
        res.end('not the console');
      },
      {
        host: '127.0.0.1',
        port: 0,
        tls: {
          cert: await readFile(certs.expiredCert, 'utf8'),
          key: await readFile(certs.expiredKey, 'utf8'),
        },
      },
    );
    try {
      const result = await exchange({
        method: 'GET',
        url: `${other.url}/user_auth`,
        headers: { 'X-Session-ID': 'a.b.c' },
        giveUpMs: 5000,
        pinnedCert: tls.cert,
      });
      expect(result).toMatchObject({ ok: false, phase: 'connect' });
      expect(reached).toBe(0);
    } finally {
      await other.close();
    }
  });
});
