/**
 * `attach HUB_URL --token T` (issue 30 item 2): a hub with TLS (openssl certificates), a member
 * token from `team add`; the laptop's attach serves the hub's pages on loopback behind its own
 * per-launch token: calls reach the hub as the member (their session, their role, their audit
 * name), the hub's events arrive live, the member token never reaches the local page or the
 * output, a refused token exits 2, and a lost hub is said and retried.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../electron/contract';
import { makeCerts, type TestCerts } from '../core/tunnel/certs';
import { httpsCall } from '../core/tunnel/https-get';
import { callApi, jsonLines, runBuiltCli, uiToken } from './helpers';
import { cliTestFile, failedRun } from './support/spawn-cli';
import { addMember, hubArgs, tlsArgs } from './support/team';
import { watchPageEvents } from './support/page-stream';

const cli = cliTestFile('dets-attach-');
let certs: TestCerts;
beforeAll(async () => {
  certs = await makeCerts(path.join(cli.tmp, 'certs'));
});

/** The transaction_ids the local page's event stream shows. */
function watch(ui: string, seen: string[]) {
  return watchPageEvents(ui, 'events.appended', (e) =>
    seen.push(String((e as { transaction_id: string | null }).transaction_id)),
  );
}

describe('attach', () => {
  it('serves the hub’s pages on loopback as the member, live, with the token kept inside', async () => {
    const dir = cli.dataDir('hub');
    const token = await addMember(['--data-dir', dir], 'dana@bank.example', 'operator');
    const hub = cli.spawn(hubArgs([...tlsArgs(certs), '--data-dir', dir]));
    const hubReady = await hub.ready;
    const hubUrl = new URL('/', String(hubReady.ui)).href;

    const refused = cli.spawn(['attach', hubUrl, '--token', 'dets_m_nope', '--json'], {
      NODE_EXTRA_CA_CERTS: certs.cert,
    });
    expect(await failedRun(refused, 2)).toEqual([
      `dets-console attach: --token: the hub ${new URL(hubUrl).origin} refused it`,
    ]);

    const a = cli.spawn(['attach', hubUrl, '--token', token, '--json'], { NODE_EXTRA_CA_CERTS: certs.cert });
    const ready = await a.ready;
    expect(Object.keys(ready)).toEqual(['ready', 'ui', 'hub']);
    expect(String(ready.ui)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect(ready.hub).toBe(hubUrl);
    expect(uiToken(ready.ui)).not.toBe(token);
    const ui = String(ready.ui);

    // The local page speaks for the member, with the hub's name and the member's role.
    expect(await callApi(ui, 'team.session')).toEqual({
      hub: '127.0.0.1',
      member: 'dana@bank.example',
      role: 'operator',
    });
    // Without the local token, nothing; the member token is not accepted locally either.
    const bare = await fetch(new URL(`${TRANSPORT.callPathPrefix}team.session`, ui), {
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: token },
    });
    expect(bare.status).toBe(401);

    // The hub's events arrive live on the local page.
    const seen: string[] = [];
    const stream = watch(ui, seen);
    await new Promise((r) => setTimeout(r, 300));
    const tx = randomUUID();
    const ca = await readFile(certs.cert, 'utf8');
    const note = await httpsCall(`${String(hubReady.bank)}/api/svc/notify/pay-in`, {
      ca,
      method: 'POST',
      body: JSON.stringify({ transaction_id: tx }),
    });
    expect(note.status).toBe(200);
    const until = Date.now() + 10_000;
    while (!seen.includes(tx) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(seen).toContain(tx);

    // A change through the laptop is the member's, audited on the hub by name.
    const saved = await fetch(new URL(`${TRANSPORT.callPathPrefix}bank.setNotifyPrefix`, ui), {
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: uiToken(ui) },
      body: JSON.stringify({ prefix: '/api/dcm/notify' }),
    });
    expect(((await saved.json()) as { ok: boolean; error?: { code: string } }).error?.code).toBe('FORBIDDEN');

    // The hub goes away: attach says so and keeps trying (and keeps serving its page).
    expect(await hub.stop()).toEqual({ code: 0, signal: null });
    await a.waitForStderr('connection lost');
    expect((await fetch(ui)).status).toBe(200);
    stream.destroy();
    expect(await a.stop()).toEqual({ code: 0, signal: null });
    expect(a.stdout + a.stderr).not.toContain(token);

    const audit = jsonLines(
      (await runBuiltCli(['events', '--kind', 'audit', '--json', '--data-dir', dir])).stdout,
    );
    expect(audit).toEqual([
      expect.objectContaining({ path: 'bank.setNotifyPrefix', sub: 'dana@bank.example', status: 403 }),
    ]);
  }, 120_000);
});
