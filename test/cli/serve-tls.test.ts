/**
 * `serve --tls-cert FILE --tls-key FILE` (DESIGN.md "Command line", issue 14): the bank URL in
 * the ready line starts with https://, callbacks and notifications work over HTTPS; a key that
 * does not match and an expired certificate are refused at start with exit 2 and one line.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeCerts, type TestCerts } from '../core/tunnel/certs';
import { httpsCall } from '../core/tunnel/https-get';
import { callApi, listEvents } from './helpers';
import { cliTestFile, failedRun } from './support/spawn-cli';

const cli = cliTestFile('dets-serve-tls-');
const BASE = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];
let certs: TestCerts;
beforeAll(async () => {
  certs = await makeCerts(path.join(cli.tmp, 'certs'));
});

describe('serve --tls-cert/--tls-key', () => {
  it('serves the bank endpoints over HTTPS: callbacks and notifications', async () => {
    const dir = cli.dataDir('tls');
    const s = cli.spawn([
      'serve',
      ...BASE,
      '--tls-cert',
      certs.cert,
      '--tls-key',
      certs.key,
      '--data-dir',
      dir,
    ]);
    const ready = await s.ready;
    expect(ready.bank).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = await readFile(certs.cert, 'utf8');
    expect((await httpsCall(`${String(ready.bank)}/user_auth`, { ca })).status).toBe(401);
    const id = randomUUID();
    const note = await httpsCall(`${String(ready.bank)}/api/svc/notify/pay-in`, {
      ca,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: id }),
    });
    expect(note.status).toBe(200);
    const st = (await callApi(String(ready.ui), 'tunnel.status')) as {
      listener: { tls: boolean; loopback_only: boolean };
    };
    expect(st.listener).toMatchObject({ tls: true, loopback_only: true });
    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(await listEvents(dir, '--kind', 'notification')).toEqual([
      expect.objectContaining({ transaction_id: id, outcome: 'accepted' }),
    ]);
  });

  it('refuses a key that does not match the certificate (exit 2, one line)', async () => {
    const s = cli.spawn([
      'serve',
      ...BASE,
      '--tls-cert',
      certs.cert,
      '--tls-key',
      certs.otherKey,
      '--data-dir',
      cli.dataDir('mismatch'),
    ]);
    expect(await failedRun(s, 2)).toEqual([
      `dets-console serve: --tls-key: "${certs.otherKey}" does not match the certificate in "${certs.cert}"`,
    ]);
  });

  it('refuses an expired certificate (exit 2, one line)', async () => {
    const s = cli.spawn([
      'serve',
      ...BASE,
      '--tls-cert',
      certs.expiredCert,
      '--tls-key',
      certs.expiredKey,
      '--data-dir',
      cli.dataDir('expired'),
    ]);
    expect(await failedRun(s, 2)).toEqual([
      `dets-console serve: --tls-cert: "${certs.expiredCert}" expired on 2020-02-01T00:00:00.000Z`,
    ]);
  });

  it('wants both files', async () => {
    const s = cli.spawn(['serve', ...BASE, '--tls-cert', certs.cert, '--data-dir', cli.dataDir('half')]);
    expect(await failedRun(s, 2)).toEqual(['dets-console serve: --tls-cert: needs --tls-key']);
  });

  it('warns on stderr about a --host that is not loopback and lists the interfaces', async () => {
    const s = cli.spawn(['serve', ...BASE, '--host', '0.0.0.0', '--data-dir', cli.dataDir('wild')]);
    const ready = await s.ready;
    expect(s.stderr).toMatch(/warning: --host 0\.0\.0\.0 is not a loopback address/);
    const local = `http://127.0.0.1:${new URL(String(ready.ui)).port}/?token=${new URL(String(ready.ui)).searchParams.get('token')}`;
    const st = (await callApi(local, 'tunnel.status')) as {
      listener: { reachable_on: string[]; loopback_only: boolean };
    };
    expect(st.listener.loopback_only).toBe(false);
    expect(st.listener.reachable_on).toEqual(
      expect.arrayContaining([expect.stringMatching(/^127\.0\.0\.1 \(.*loopback\)$/)]),
    );
    expect(await s.stop()).toEqual({ code: 0, signal: null });
  });
});
