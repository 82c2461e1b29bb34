/**
 * The tunnel.* methods behind the ConsoleApi (issue 14): which public URL is in force (the
 * Bank page's, then the active environment's, --public-url over both), what to register with
 * the notification prefix, the probe through the bank listener, a tunnel that cannot be made
 * shown as failed, and a damaged saved file named without losing it.
 */
import { createServer } from 'node:net';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';

let core: ConsoleCore | undefined;
let dir: string | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  dir = undefined;
});

async function value(method: string, input?: unknown): Promise<Record<string, unknown>> {
  const answer = await core!.dispatch(method, input);
  if (!answer.ok) throw new Error(`${method}: ${answer.error.code}: ${answer.error.message}`);
  return answer.value as Record<string, unknown>;
}

describe('tunnel.* through dispatch', () => {
  it('takes the Bank page URL, then the active environment, and lists what to register', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-tunnel-wiring-'));
    core = await createConsoleCore({ dataDir: dir, host: 'cli' });
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });

    expect(await value('tunnel.status')).toMatchObject({
      public_url: null,
      public_url_source: null,
      register: null,
    });
    const saved = await value('tunnel.setPublicUrl', { url: `${bank.url}/` });
    methods['tunnel.setPublicUrl'].output.parse(saved);
    expect(saved).toMatchObject({
      public_url: bank.url,
      public_url_source: 'profile',
      saved_public_url: bank.url,
    });

    await value('bank.setNotifyPrefix', { prefix: '/api/dcm/notify' });
    expect((await value('tunnel.status')).register).toEqual({
      bank_auth_url: bank.url,
      notification_urls: ['pay-in', 'pay-out', 'transfer'].map((n) => `${bank.url}/api/dcm/notify/${n}`),
    });

    // The probe goes through the real bank listener, which answers the marker.
    const probe = await value('tunnel.probe');
    expect(probe).toMatchObject({ outcome: 'reachable', status: 200 });

    const env = (await value('env.save', {
      name: 'Staging',
      base_url: 'https://dets.staging.example',
      public_url: 'https://bank-dev.example.com',
    })) as { id: string; public_url: string };
    expect(env.public_url).toBe('https://bank-dev.example.com');
    await value('env.activate', { id: env.id });
    expect(await value('tunnel.status')).toMatchObject({
      public_url: 'https://bank-dev.example.com',
      public_url_source: 'environment',
    });
  });

  it('refuses a public URL with credentials, and names a damaged saved file without rewriting it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-tunnel-wiring-'));
    core = await createConsoleCore({ dataDir: dir, host: 'cli', publicUrl: 'https://front.example.com' });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    const bad = await core.dispatch('tunnel.setPublicUrl', { url: 'https://me:pw@front.example.com' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT' } });
    expect((await value('tunnel.status')).public_url_source).toBe('flag');

    await writeFile(join(dir, 'public-url.json'), '{"public_url": 42}');
    const damaged = await core.dispatch('tunnel.status', undefined);
    expect(damaged).toMatchObject({ ok: false, error: { code: 'STATE_DAMAGED' } });
    expect(await readFile(join(dir, 'public-url.json'), 'utf8')).toBe('{"public_url": 42}');
  });

  it("names sshd's GatewayPorts when an ssh tunnel's URL answers nothing", async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-tunnel-wiring-'));
    // A port nothing listens on: what a forward bound to the ssh host's loopback looks like from
    // anywhere else.
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    // A stand-in for ssh: says what ssh says for `-R 0:…` (the allocated port), then stays up
    // until the console stops it.
    const fake = join(dir, 'fake-ssh');
    await writeFile(
      fake,
      `#!/bin/sh\necho "Allocated port ${closed} for remote forward to 127.0.0.1:7301" >&2\nexec sleep 600\n`,
    );
    await chmod(fake, 0o755);
    core = await createConsoleCore({
      dataDir: dir,
      host: 'cli',
      env: { ...process.env, DETS_SSH_COMMAND: fake },
    });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    const st = await value('tunnel.start', { target: 'ssh:127.0.0.1' });
    expect(st.tunnel).toMatchObject({ client: 'ssh', state: 'up', url: `http://127.0.0.1:${closed}` });

    const probe = await value('tunnel.probe');
    methods['tunnel.probe'].output.parse(probe);
    expect(probe).toMatchObject({ outcome: 'unreachable', url: expect.stringContaining(`:${closed}/`) });
    expect(probe.detail).toMatch(/^nothing answered at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED/);
    expect(probe.detail).toContain('`GatewayPorts yes`');
    // The same URL saved on the Bank page, with no tunnel: no word of ssh.
    await value('tunnel.stop');
    await value('tunnel.setPublicUrl', { url: `http://127.0.0.1:${closed}` });
    const plain = await value('tunnel.probe');
    expect(plain.outcome).toBe('unreachable');
    expect(plain.detail).not.toContain('GatewayPorts');
  });

  it('shows a tunnel that cannot be made as failed, with the client named', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-tunnel-wiring-'));
    core = await createConsoleCore({
      dataDir: dir,
      host: 'cli',
      env: { ...process.env, DETS_SSH_COMMAND: join(dir, 'no-ssh-here') },
    });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    const st = await value('tunnel.start', { target: 'ssh:tunnel.example.com' });
    expect(st.tunnel).toMatchObject({
      client: 'ssh',
      state: 'failed',
      last_error: `no-ssh-here: not found (${join(dir, 'no-ssh-here')}); DETS_SSH_COMMAND names a program that is not installed or not on PATH: fix DETS_SSH_COMMAND`,
      pid: null,
      failure: { code: 'ssh_not_installed' },
    });
  });
});
