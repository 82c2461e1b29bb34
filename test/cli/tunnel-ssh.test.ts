/**
 * `serve --tunnel ssh:root@127.0.0.1:P` through a real sshd on this machine (issue 14): the
 * system ssh (DETS_SSH_COMMAND carrying the test's key and known-hosts file) asks for a remote
 * port, the ready line names it, and /user_auth and a notification arrive through it; then the
 * sshd is killed, the tunnel is marked down, sshd comes back on the same port, and the tunnel is
 * re-made with traffic flowing again. Every process is stopped by PID.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { callApi, listEvents, notify } from './helpers';
import { cliTestFile, failedRun } from './support/spawn-cli';
import { sshFixture, type SshFixture } from './support/sshd';
import { alive, until } from './support/until';

const cli = cliTestFile('dets-ssh-');
const BASE = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];

interface Status {
  public_url: string | null;
  tunnel: {
    client: string;
    state: string;
    url: string | null;
    pid: number | null;
    last_error: string | null;
  } | null;
  probe: { outcome: string } | null;
}
const status = (ui: unknown) => callApi(String(ui), 'tunnel.status') as Promise<Status>;

let sshd: SshFixture;
beforeAll(async () => {
  sshd = await sshFixture(path.join(cli.tmp, 'sshd'), await freePort());
  await sshd.start();
});
afterAll(async () => {
  await sshd?.kill();
});

describe('serve --tunnel ssh: (real sshd on 127.0.0.1)', () => {
  it('forwards callbacks and notifications, is marked down when sshd dies, and is re-made when it returns', async () => {
    const dir = cli.dataDir('ssh');
    const s = cli.spawn(
      ['serve', ...BASE, '--tunnel', `ssh:root@127.0.0.1:${sshd.port}`, '--data-dir', dir],
      {
        DETS_SSH_COMMAND: sshd.sshCommand,
      },
    );
    const ready = await s.ready.catch((err: unknown) => {
      throw new Error(`${String(err)}\nsshd said:\n${sshd.log}`);
    });
    expect(ready.public).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.public).not.toBe(ready.bank);

    // Through the forwarded port: the console answers (401: no X-Session-ID) and stores a notification.
    expect((await fetch(`${String(ready.public)}/user_auth`)).status).toBe(401);
    const first = randomUUID();
    expect((await notify(ready.public, 'transfer', JSON.stringify({ transaction_id: first }))).status).toBe(
      200,
    );
    const up = await until('the automatic probe', async () => {
      const x = await status(ready.ui);
      return x.probe ? x : undefined;
    });
    expect(up.probe?.outcome).toBe('reachable');
    const firstPid = up.tunnel?.pid;
    expect(firstPid).toEqual(expect.any(Number));

    await sshd.kill();
    const down = await until('the tunnel marked down', async () => {
      const x = await status(ready.ui);
      return x.tunnel?.state === 'down' ? x : undefined;
    });
    expect(down.tunnel?.last_error).toMatch(/^ssh: /);
    expect(down.public_url).toBeNull();
    expect(alive(firstPid!)).toBe(false);

    await sshd.start();
    const back = await until(
      'the tunnel re-made',
      async () => {
        const x = await status(ready.ui);
        return x.tunnel?.state === 'up' ? x : undefined;
      },
      { tries: 300, everyMs: 200 },
    );
    expect(back.public_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${String(back.public_url)}/key`)).status).toBe(401);
    const second = randomUUID();
    expect(
      (await notify(back.public_url, 'pay-out', JSON.stringify({ transaction_id: second }))).status,
    ).toBe(200);

    const secondPid = back.tunnel!.pid!;
    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(alive(secondPid)).toBe(false);

    const events = await listEvents(dir);
    expect(events.filter((e) => e.kind === 'notification').map((e) => e.transaction_id)).toEqual([
      first,
      second,
    ]);
    expect(events.filter((e) => e.kind === 'trace').map((e) => e.path)).toEqual([
      'tunnel.up',
      'tunnel.down',
      'tunnel.up',
    ]);
  }, 120_000);

  it("exits 1 with ssh's own words when the key is refused", async () => {
    const s = cli.spawn(
      ['serve', ...BASE, '--tunnel', `ssh:root@127.0.0.1:${sshd.port}`, '--data-dir', cli.dataDir('refused')],
      {
        // A key the server does not know, and no agent to fall back on.
        DETS_SSH_COMMAND: `${sshd.sshCommand.replace(/-i \S+/, `-i ${path.join(cli.tmp, 'sshd', 'host_ed25519')}`)} -o IdentitiesOnly=yes -o IdentityAgent=none`,
      },
    );
    expect(await failedRun(s, 1)).toEqual([
      expect.stringMatching(
        /^dets-console serve: ssh: root@127\.0\.0\.1: Permission denied \(publickey\)\. The host refused the login with the identities DETS_SSH_COMMAND names; name in DETS_SSH_COMMAND \(-i\) or on the Bank page the private key/,
      ),
    ]);
  });

  it('exits 1 with "ssh: not found" when the ssh command does not exist', async () => {
    const s = cli.spawn(
      ['serve', ...BASE, '--tunnel', 'ssh:127.0.0.1:1', '--data-dir', cli.dataDir('nossh')],
      {
        DETS_SSH_COMMAND: path.join(cli.tmp, 'no', 'ssh'),
      },
    );
    expect(await failedRun(s, 1)).toEqual([
      expect.stringMatching(
        /^dets-console serve: ssh: not found \(\S+\/no\/ssh\); DETS_SSH_COMMAND names a program that is not installed or not on PATH: fix DETS_SSH_COMMAND$/,
      ),
    ]);
  });

  it("without DETS_SSH_COMMAND: the profile environment's ssh settings, an unknown host key named with its fingerprint (exit 1), then the key pinned in <data-dir>/ssh/known_hosts is used", async () => {
    const dir = cli.dataDir('pinned');
    await mkdir(dir, { recursive: true });
    const own = path.join(cli.tmp, 'own_known_hosts');
    await writeFile(own, '');
    // What saving the Bank page's form writes for the sandbox environment (issue 26 item 4).
    await writeFile(
      path.join(dir, 'environments.json'),
      JSON.stringify({
        version: 1,
        sandbox: {
          ssh_tunnel: { identity_file: sshd.userKey, known_hosts_file: own, options: [], remote_port: null },
        },
      }),
    );
    const args = ['serve', ...BASE, '--tunnel', `ssh:root@127.0.0.1:${sshd.port}`, '--data-dir', dir];
    const fingerprint = /SHA256:\S+/.exec(
      execFileSync('ssh-keygen', ['-lf', `${sshd.hostKey}.pub`], { encoding: 'utf8' }),
    )![0];
    const [line] = await failedRun(cli.spawn(args, { DETS_SSH_COMMAND: '' }), 1);
    expect(line).toContain(`ssh: the host key of 127.0.0.1 port ${sshd.port} is not known yet`);
    expect(line).toContain(`(the host shows ED25519 ${fingerprint})`);
    expect(line).not.toContain('Host key verification failed.');
    // Confirmed (as the Bank page's Trust does): the pinned file is what ssh checks from now on.
    const pub = readFileSync(`${sshd.hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
    await writeFile(path.join(dir, 'ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${pub}\n`);
    const s = cli.spawn(args, { DETS_SSH_COMMAND: '' });
    const ready = await s.ready;
    expect(ready.public).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await readFile(own, 'utf8')).toBe('');
    expect(await s.stop()).toEqual({ code: 0, signal: null });
  }, 60_000);
});
