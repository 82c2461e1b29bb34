/**
 * The ssh tunnel from the Bank page against a real OpenSSH server on loopback (issue 26 item 4),
 * through the core's dispatch as every host calls it: the environment's settings (identity and
 * known-hosts paths, nothing else), an unknown host key shown with the fingerprint
 * `ssh-keygen -lf` prints, pinned on confirmation in <data-dir>/ssh/known_hosts and the tunnel up
 * without a restart; a changed key refused with both fingerprints; and one code per failure:
 * wrong identity, forwarding not allowed, a fixed remote port in use, GatewayPorts.
 *
 * DETS_SSH_COMMAND is removed from the core's environment: these runs use the page's settings.
 * Every sshd is stopped by PID (test/cli/support/sshd.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import type { TunnelStatus } from '../../../electron/contract/schemas/tunnel';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { freePort } from '../../support/free-port';
import { sshFixture, type SshFixture, type SshdOptions } from '../../cli/support/sshd';
import { until } from '../../cli/support/until';

let root: string;
const sshds: SshFixture[] = [];
let core: ConsoleCore | undefined;
let dataDir: string;
/** An empty known-hosts file of the user's own, so the test never reads root's ~/.ssh/known_hosts. */
let ownKnownHosts: string;

async function startSshd(name: string, opts: SshdOptions = {}): Promise<SshFixture> {
  const f = await sshFixture(join(root, name), await freePort(), opts);
  sshds.push(f);
  await f.start();
  return f;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dets-ssh-real-'));
  ownKnownHosts = join(root, 'own_known_hosts');
  await writeFile(ownKnownHosts, '');
});
afterAll(async () => {
  for (const f of sshds) await f.kill();
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
});
afterEach(async () => {
  await core?.close();
  core = undefined;
});

async function newCore(): Promise<void> {
  dataDir = await mkdtemp(join(root, 'profile-'));
  const env = { ...process.env };
  delete env.DETS_SSH_COMMAND;
  core = await createConsoleCore({ dataDir, host: 'cli', env });
  await core.listenBank({ host: '127.0.0.1', port: 0 });
}

async function call<T = TunnelStatus>(method: string, input?: unknown): Promise<T> {
  const answer = await core!.dispatch(method, input);
  if (!answer.ok) throw new Error(`${method}: ${answer.error.code}: ${answer.error.message}`);
  if (method in methods)
    (methods as Record<string, { output: { parse(v: unknown): unknown } }>)[method]!.output.parse(
      answer.value,
    );
  return answer.value as T;
}

async function refusal(method: string, input: unknown) {
  const answer = await core!.dispatch(method, input);
  if (answer.ok) throw new Error(`${method} was accepted`);
  return answer.error;
}

const settings = (f: SshFixture, over: Record<string, unknown> = {}) => ({
  identity_file: f.userKey,
  known_hosts_file: ownKnownHosts,
  options: [],
  remote_port: null,
  ...over,
});

/** `ssh-keygen -lf FILE.pub` → its SHA256 fingerprint. */
const keygenFingerprint = (pub: string) =>
  /SHA256:\S+/.exec(execFileSync('ssh-keygen', ['-lf', pub], { encoding: 'utf8' }))![0];

describe('the ssh tunnel with the Bank page settings (real sshd)', () => {
  let sshd: SshFixture;
  beforeAll(async () => {
    sshd = await startSshd('main');
  });

  it('unknown host key → fingerprint shown → confirmed → tunnel up without a restart; the pinned file is used after', async () => {
    await newCore();
    await call('tunnel.saveSsh', settings(sshd));
    const target = `ssh:root@127.0.0.1:${sshd.port}`;
    const failed = await call('tunnel.start', { target });
    expect(failed.tunnel).toMatchObject({ state: 'failed', failure: { code: 'host_key_unknown' } });
    expect(failed.tunnel?.last_error).not.toContain('Host key verification failed.');
    const offer = failed.host_key!;
    const expected = keygenFingerprint(`${sshd.hostKey}.pub`);
    expect(offer).toMatchObject({ state: 'unknown', host: `[127.0.0.1]:${sshd.port}`, pinned: [] });
    expect(offer.keys).toEqual([
      {
        type: 'ED25519',
        bits: 256,
        fingerprint: expected,
        line: `256 ${expected} [127.0.0.1]:${sshd.port} (ED25519)`,
      },
    ]);
    // Nothing pinned before the engineer confirms.
    expect(await readFile(join(dataDir, 'ssh', 'known_hosts'), 'utf8')).not.toContain('ssh-ed25519');

    // A fingerprint other than the one shown pins nothing.
    const wrong = await refusal('tunnel.trustHostKey', {
      host: offer.host,
      fingerprint: `SHA256:${'A'.repeat(43)}`,
    });
    expect(wrong).toMatchObject({ code: 'BAD_ARGUMENT', details: { field: 'fingerprint' } });

    const up = await call('tunnel.trustHostKey', { host: offer.host, fingerprint: expected });
    expect(up.tunnel).toMatchObject({ state: 'up', failure: null });
    expect(up.host_key).toBeNull();
    expect((await fetch(`${up.tunnel!.url}/user_auth`)).status).toBe(401);
    const pinned = await readFile(join(dataDir, 'ssh', 'known_hosts'), 'utf8');
    expect(pinned).toContain(
      `[127.0.0.1]:${sshd.port} ${readFileSync(`${sshd.hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}`,
    );
    // ssh runs with the pinned file first and strict checking.
    const argv = readFileSync(`/proc/${up.tunnel!.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain(`UserKnownHostsFile=${join(dataDir, 'ssh', 'known_hosts')} ${ownKnownHosts}`);
    expect(argv).toContain('StrictHostKeyChecking=yes');
    expect(up.ssh?.pinned.map((p) => p.fingerprint)).toEqual([expected]);

    // Later runs use the pinned key: up at once, no offer.
    await call('tunnel.stop');
    const again = await call('tunnel.start', { target });
    expect(again.tunnel?.state).toBe('up');
    expect(again.host_key).toBeNull();
  });

  it('a changed host key is refused with the old and new fingerprints and how to unpin', async () => {
    await newCore();
    await call('tunnel.saveSsh', settings(sshd));
    // Pin another key for this host: what a reinstalled host (or a man in the middle) looks like.
    const other = join(root, 'other_host');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    const otherPub = readFileSync(`${other}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
    await mkdir(join(dataDir, 'ssh'), { recursive: true });
    await writeFile(join(dataDir, 'ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${otherPub}\n`);
    const st = await call('tunnel.start', { target: `ssh:root@127.0.0.1:${sshd.port}` });
    const now = keygenFingerprint(`${sshd.hostKey}.pub`);
    const old = keygenFingerprint(`${other}.pub`);
    expect(st.tunnel).toMatchObject({ state: 'failed', failure: { code: 'host_key_changed' } });
    expect(st.tunnel?.failure?.message).toContain(now);
    expect(st.tunnel?.failure?.action).toMatch(/unpin/i);
    expect(st.host_key).toMatchObject({ state: 'changed', host: `[127.0.0.1]:${sshd.port}` });
    expect(st.host_key?.keys.map((k) => k.fingerprint)).toEqual([now]);
    expect(st.host_key?.pinned.map((k) => k.fingerprint)).toEqual([old]);
    // Not confirmable while the old key is pinned.
    expect(await refusal('tunnel.trustHostKey', { host: st.host_key!.host, fingerprint: now })).toMatchObject(
      {
        code: 'CONFLICT',
      },
    );
    const unpinned = await call('tunnel.unpinHostKey', { host: st.host_key!.host });
    expect(unpinned.host_key).toMatchObject({ state: 'unknown', pinned: [] });
    expect(await readFile(join(dataDir, 'ssh', 'known_hosts'), 'utf8')).not.toContain(otherPub);
  });

  it('a host key that changes while the tunnel is up: the re-made attempt is refused as changed, and no retry follows', async () => {
    // Its own server: the host key is replaced under it.
    const rekeyed = await startSshd('rekey');
    await newCore();
    await call('tunnel.saveSsh', settings(rekeyed));
    const offer = (await call('tunnel.start', { target: `ssh:root@127.0.0.1:${rekeyed.port}` })).host_key!;
    const before = keygenFingerprint(`${rekeyed.hostKey}.pub`);
    expect((await call('tunnel.trustHostKey', { host: offer.host, fingerprint: before })).tunnel?.state).toBe(
      'up',
    );

    // The host reinstalled (or a man in the middle on its address): same port, another key.
    await rekeyed.kill();
    await rm(rekeyed.hostKey);
    await rm(`${rekeyed.hostKey}.pub`);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', rekeyed.hostKey]);
    const after = keygenFingerprint(`${rekeyed.hostKey}.pub`);
    expect(after).not.toBe(before);
    await rekeyed.start();

    const failed = await until(
      'the re-made tunnel refused',
      async () => {
        const st = await call('tunnel.status');
        // The offer follows the failure (the host's key is fetched, then announced again).
        return st.tunnel?.state === 'failed' && st.host_key ? st : undefined;
      },
      { tries: 150, everyMs: 200 },
    );
    expect(failed.tunnel).toMatchObject({
      failure: { code: 'host_key_changed' },
      url: null,
      next_retry_at: null,
    });
    expect(failed.tunnel?.failure?.message).toContain(after);
    expect(failed.host_key).toMatchObject({ state: 'changed', host: offer.host });
    expect(failed.host_key?.keys.map((k) => k.fingerprint)).toEqual([after]);
    expect(failed.host_key?.pinned.map((k) => k.fingerprint)).toEqual([before]);
    expect(failed.public_url).toBeNull();
    // It waits for the engineer: past the next backoff steps (1 s, 2 s), no attempt and no change.
    await new Promise((r) => setTimeout(r, 3500));
    const later = await call('tunnel.status');
    expect(later.tunnel).toMatchObject({
      state: 'failed',
      since: failed.tunnel!.since,
      attempts: failed.tunnel!.attempts,
      next_retry_at: null,
    });
    // The old key stays pinned until the engineer unpins it.
    expect(later.ssh?.pinned.map((p) => p.fingerprint)).toEqual([before]);
    await rekeyed.kill();
  }, 60_000);

  it('wrong identity: auth_refused, its own message', async () => {
    await newCore();
    const wrongKey = join(root, 'wrong_id');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', wrongKey]);
    await call(
      'tunnel.saveSsh',
      settings(sshd, { identity_file: wrongKey, options: ['-o', 'IdentitiesOnly=yes'] }),
    );
    await pin(sshd);
    const st = await call('tunnel.start', { target: `ssh:root@127.0.0.1:${sshd.port}` });
    expect(st.tunnel).toMatchObject({ state: 'failed', failure: { code: 'auth_refused' } });
    expect(st.tunnel?.failure?.message).toContain(wrongKey);
    expect(st.tunnel?.last_error).toMatch(
      /^ssh: root@127\.0\.0\.1: Permission denied \(publickey\)\. The host refused the login with the identity /,
    );
  });

  it('a fixed remote port already in use: remote_port_in_use', async () => {
    await newCore();
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      await call('tunnel.saveSsh', settings(sshd, { remote_port: port }));
      await pin(sshd);
      const st = await call('tunnel.start', { target: `ssh:root@127.0.0.1:${sshd.port}` });
      expect(st.tunnel).toMatchObject({ state: 'failed', failure: { code: 'remote_port_in_use' } });
      expect(st.tunnel?.failure?.message).toContain(String(port));
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  it('settings: a key pasted as the identity, a public key, a missing file and command-running options are refused, nothing saved', async () => {
    await newCore();
    await call('tunnel.saveSsh', settings(sshd));
    const before = await readFile(join(dataDir, 'environments.json'), 'utf8');
    const pem = readFileSync(sshd.userKey, 'utf8');
    const pasted = await refusal('tunnel.saveSsh', settings(sshd, { identity_file: pem }));
    expect(pasted).toMatchObject({ code: 'BAD_ARGUMENT', details: { field: 'identity_file' } });
    expect(pasted.message).toMatch(/looks like key material/);
    expect(JSON.stringify(pasted)).not.toContain(pem.split('\n')[1]!);
    const pub = await refusal('tunnel.saveSsh', settings(sshd, { identity_file: `${sshd.userKey}.pub` }));
    expect(pub).toMatchObject({ details: { field: 'identity_file' } });
    expect(pub.message).toMatch(/PUBLIC key/);
    const missing = await refusal('tunnel.saveSsh', settings(sshd, { known_hosts_file: join(root, 'nope') }));
    expect(missing).toMatchObject({ details: { field: 'known_hosts_file' } });
    expect(missing.message).toMatch(/no such file/);
    for (const options of [
      ['-o', 'ProxyCommand=nc %h %p'],
      ['-oLocalCommand=id'],
      ['-o', 'PermitLocalCommand yes'],
      ['-F', '/etc/passwd'],
    ]) {
      const bad = await refusal('tunnel.saveSsh', settings(sshd, { options }));
      expect(bad, options.join(' ')).toMatchObject({ code: 'BAD_ARGUMENT', details: { field: 'options' } });
    }
    expect(await readFile(join(dataDir, 'environments.json'), 'utf8')).toBe(before);
    expect((await call('tunnel.status')).ssh?.settings.identity_file).toBe(sshd.userKey);
  });
});

/** The page's flow: start, the host key offered, confirmed; answers the status after it. */
async function startConfirming(target: string): Promise<TunnelStatus> {
  const first = await call('tunnel.start', { target });
  const offer = first.host_key;
  if (!offer) throw new Error(`no host key offered: ${first.tunnel?.last_error ?? ''}`);
  return call('tunnel.trustHostKey', { host: offer.host, fingerprint: offer.keys[0]!.fingerprint });
}

/** Pins the fixture's host key through the page's flow, tunnel stopped after. */
async function pin(f: SshFixture): Promise<void> {
  await startConfirming(`ssh:root@127.0.0.1:${f.port}`);
  await call('tunnel.stop');
}

describe('sshd refusing what the tunnel needs (real sshd)', () => {
  it('AllowTcpForwarding no: forward_refused, also for a fixed port', async () => {
    const sshd = await startSshd('noforward', { config: { AllowTcpForwarding: 'no' } });
    await newCore();
    await call('tunnel.saveSsh', settings(sshd));
    const st = await startConfirming(`ssh:root@127.0.0.1:${sshd.port}`);
    expect(st.tunnel).toMatchObject({ state: 'failed', failure: { code: 'forward_refused' } });
    expect(st.tunnel?.failure?.action).toContain('AllowTcpForwarding');
    await call('tunnel.saveSsh', settings(sshd, { remote_port: await freePort() }));
    const fixed = await call('tunnel.start', { target: `ssh:root@127.0.0.1:${sshd.port}` });
    expect(fixed.tunnel?.failure?.code).toBe('forward_refused');
  });

  it('GatewayPorts no on a host reached at another address: gateway_ports from the probe; yes: reachable', async () => {
    // 127.0.0.2 is loopback too, but a port bound to 127.0.0.1 does not answer there: what a
    // forward bound to the ssh host's own loopback looks like from the service.
    for (const [gateway, expectFailure] of [
      ['no', true],
      ['yes', false],
    ] as const) {
      const sshd = await startSshd(`gateway-${gateway}`, {
        listen: '127.0.0.2',
        config: { GatewayPorts: gateway },
      });
      await newCore();
      await call('tunnel.saveSsh', settings(sshd));
      const up = await startConfirming(`ssh:root@127.0.0.2:${sshd.port}`);
      expect(up.tunnel?.state).toBe('up');
      const probed = await until('the automatic probe', async () => {
        const s = await call('tunnel.status');
        return s.probe ? s : undefined;
      });
      if (expectFailure) {
        expect(probed.probe?.outcome).toBe('unreachable');
        expect(probed.tunnel?.failure?.code).toBe('gateway_ports');
        expect(probed.tunnel?.failure?.action).toContain('GatewayPorts yes');
      } else {
        expect(probed.probe?.outcome).toBe('reachable');
        expect(probed.tunnel?.failure ?? null).toBeNull();
      }
      await core!.close();
      core = undefined;
    }
  });
});
