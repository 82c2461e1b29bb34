/**
 * `serve --tunnel cloudflared|ngrok` against stand-in executables that print what the real
 * clients print and really forward to the bank listener (test/cli/support/tunnel-standins.ts):
 * the ready line's "public", the probe through the tunnel, real callbacks and notifications
 * through it, the one-line exit 1 when the client fails or is missing, a dropped tunnel re-made,
 * and every client process stopped with the console.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callApi, listEvents, notify } from './helpers';
import { cliTestFile, failedRun } from './support/spawn-cli';
import { writeStandIns } from './support/tunnel-standins';
import { alive, until } from './support/until';

const cli = cliTestFile('dets-tunnel-');
const BASE = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];

async function envFor(name: string, mode: string): Promise<NodeJS.ProcessEnv> {
  const bin = await writeStandIns(path.join(cli.tmp, name, 'bin'));
  return {
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    STANDIN_MODE: mode,
    STANDIN_PIDS: path.join(cli.tmp, name, 'pids'),
    STANDIN_COUNTER: path.join(cli.tmp, name, 'runs'),
  };
}

async function pids(env: NodeJS.ProcessEnv): Promise<number[]> {
  const text = await readFile(String(env.STANDIN_PIDS), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

interface Status {
  public_url: string | null;
  public_url_source: string | null;
  register: { bank_auth_url: string; notification_urls: string[] } | null;
  tunnel: {
    client: string;
    state: string;
    url: string | null;
    pid: number | null;
    last_error: string | null;
  } | null;
  probe: { outcome: string; rtt_ms: number | null; detail: string } | null;
}
const status = (ui: unknown) => callApi(String(ui), 'tunnel.status') as Promise<Status>;

describe('serve --tunnel cloudflared (stand-in)', () => {
  it('waits for the quick tunnel, prints "public", passes the probe, carries callbacks and notifications, and stops the client', async () => {
    const env = await envFor('cf-ok', 'ok');
    const s = cli.spawn(
      ['serve', ...BASE, '--tunnel', 'cloudflared', '--data-dir', cli.dataDir('cf-ok')],
      env,
    );
    const ready = await s.ready;
    expect(ready.public).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.public).not.toBe(ready.bank);

    const st = await until('the automatic probe', async () => {
      const x = await status(ready.ui);
      return x.probe ? x : undefined;
    });
    expect(st.public_url).toBe(ready.public);
    expect(st.public_url_source).toBe('tunnel');
    expect(st.register).toEqual({
      bank_auth_url: ready.public,
      notification_urls: ['pay-in', 'pay-out', 'transfer'].map(
        (n) => `${String(ready.public)}/api/svc/notify/${n}`,
      ),
    });
    expect(st.tunnel).toMatchObject({ client: 'cloudflared', state: 'up', url: ready.public });
    expect(st.probe).toMatchObject({ outcome: 'reachable' });
    expect(st.probe?.rtt_ms).toEqual(expect.any(Number));

    // Through the tunnel: a callback answered by the console, a notification stored.
    const txId = randomUUID();
    expect((await fetch(`${String(ready.public)}/user_auth`)).status).toBe(401);
    expect((await notify(ready.public, 'pay-in', JSON.stringify({ transaction_id: txId }))).status).toBe(200);

    const [pid] = await pids(env);
    expect(st.tunnel?.pid).toBe(pid);
    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(alive(pid!)).toBe(false);
    const events = await listEvents(cli.dataDir('cf-ok'));
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'callback', path: '/user_auth', status: 401 }),
        expect.objectContaining({ kind: 'notification', transaction_id: txId, outcome: 'accepted' }),
        expect.objectContaining({ kind: 'trace', path: 'tunnel.up' }),
      ]),
    );
  });

  it('exits 1 with one line naming cloudflared and what it said when it cannot reach its edge', async () => {
    const env = await envFor('cf-fail', 'edge-fail');
    const s = cli.spawn(
      ['serve', ...BASE, '--tunnel', 'cloudflared', '--data-dir', cli.dataDir('cf-fail')],
      env,
    );
    expect(await failedRun(s, 1)).toEqual([
      'dets-console serve: cloudflared: failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com on 127.0.0.53:53: server misbehaving',
    ]);
  });

  it('exits 1 with "cloudflared: not found" when it is not installed', async () => {
    const s = cli.spawn(['serve', ...BASE, '--tunnel', 'cloudflared', '--data-dir', cli.dataDir('cf-none')], {
      PATH: path.join(cli.tmp, 'no-such-bin'),
    });
    const lines = await failedRun(s, 1);
    expect(lines).toEqual([
      expect.stringMatching(/^dets-console serve: cloudflared: not found \(install cloudflared/),
    ]);
  });

  it('re-makes a tunnel that drops, and marks the drop and the return', async () => {
    const env = await envFor('cf-drop', 'drop-once');
    const s = cli.spawn(
      ['serve', ...BASE, '--tunnel', 'cloudflared', '--data-dir', cli.dataDir('cf-drop')],
      env,
    );
    const ready = await s.ready;
    await s.waitForStderr('tunnel (cloudflared) down: cloudflared: no more connections active and exiting');
    const back = await until('the tunnel back up', async () => {
      const x = await status(ready.ui);
      return x.tunnel?.state === 'up' && x.tunnel.url !== ready.public ? x : undefined;
    });
    expect(back.public_url).toBe(back.tunnel?.url);
    expect((await fetch(`${String(back.public_url)}/user_auth`)).status).toBe(401);
    const all = await pids(env);
    expect(all).toHaveLength(2);
    expect(alive(all[0]!)).toBe(false);
    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(alive(all[1]!)).toBe(false);
    const traces = (await listEvents(cli.dataDir('cf-drop')))
      .filter((e) => e.kind === 'trace')
      .map((e) => [e.path, e.warning]);
    expect(traces).toEqual([
      ['tunnel.up', null],
      ['tunnel.down', 'cloudflared: no more connections active and exiting'],
      ['tunnel.up', null],
    ]);
  });
});

describe('serve --tunnel ngrok (stand-in)', () => {
  it('reads the URL from the JSON log and passes the probe', async () => {
    const env = await envFor('ng-log', 'ok-log');
    const s = cli.spawn(['serve', ...BASE, '--tunnel', 'ngrok', '--data-dir', cli.dataDir('ng-log')], env);
    const ready = await s.ready;
    expect(ready.public).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const st = await until('the automatic probe', async () => {
      const x = await status(ready.ui);
      return x.probe ? x : undefined;
    });
    expect(st.probe?.outcome).toBe('reachable');
    expect((await fetch(`${String(ready.public)}/key`)).status).toBe(401);
    const [pid] = await pids(env);
    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(alive(pid!)).toBe(false);
  });

  it('reads the URL from the local API when no log line carries it', async () => {
    const env = await envFor('ng-api', 'ok-api');
    const s = cli.spawn(['serve', ...BASE, '--tunnel', 'ngrok', '--data-dir', cli.dataDir('ng-api')], env);
    const ready = await s.ready;
    expect(ready.public).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${String(ready.public)}/external_id`)).status).toBe(401);
    expect(await s.stop()).toEqual({ code: 0, signal: null });
  });

  it('exits 1 with the authtoken error in one line (ERR_NGROK_4018)', async () => {
    const env = await envFor('ng-auth', 'auth-fail');
    const s = cli.spawn(['serve', ...BASE, '--tunnel', 'ngrok', '--data-dir', cli.dataDir('ng-auth')], env);
    expect(await failedRun(s, 1)).toEqual([
      'dets-console serve: ngrok: authentication failed: Usage of ngrok requires a verified account and authtoken. (ERR_NGROK_4018)',
    ]);
  });
});

describe('serve --public-url and the tunnel flags', () => {
  it('prints the given public URL as "public" and refuses credentials in it (exit 2)', async () => {
    const s = cli.spawn([
      'serve',
      ...BASE,
      '--public-url',
      'https://bank.example.com/',
      '--data-dir',
      cli.dataDir('pub'),
    ]);
    const ready = await s.ready;
    expect(ready.public).toBe('https://bank.example.com');
    const st = await status(ready.ui);
    expect(st.public_url_source).toBe('flag');
    expect(await s.stop()).toEqual({ code: 0, signal: null });

    const bad = cli.spawn([
      'serve',
      ...BASE,
      '--public-url',
      'https://u:p@bank.example.com',
      '--data-dir',
      cli.dataDir('pub2'),
    ]);
    expect(await failedRun(bad, 2)).toEqual([
      expect.stringMatching(
        /^dets-console serve: --public-url: "https:\/\/u:p@bank.example.com" must not carry user:password@/,
      ),
    ]);
    const ftp = cli.spawn([
      'serve',
      ...BASE,
      '--public-url',
      'ftp://bank.example.com',
      '--data-dir',
      cli.dataDir('pub3'),
    ]);
    expect(await failedRun(ftp, 2)).toEqual([
      expect.stringMatching(/--public-url: .* must be an http\(s\) URL/),
    ]);
  });

  it('refuses a --tunnel it does not know (exit 2)', async () => {
    const s = cli.spawn([
      'serve',
      ...BASE,
      '--tunnel',
      'ssh:-oProxyCommand=x',
      '--data-dir',
      cli.dataDir('bad-tunnel'),
    ]);
    expect(await failedRun(s, 2)).toEqual([
      'dets-console serve: --tunnel: "ssh:-oProxyCommand=x" must be ssh:[USER@]HOST[:PORT], cloudflared or ngrok',
    ]);
  });
});
