/**
 * `dets-console serve` as scripts and CI drive it (DESIGN.md "Command line"): the built CLI in
 * its own process, the --json ready line, port 0, exit codes, and a clean stop on signals.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnCli, type SpawnedCli } from './support/spawn-cli';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseServeFlags } from '../../electron/cli/commands/serve';
import type { CliIo } from '../../electron/cli/io';
import { TRANSPORT } from '../../electron/contract';
import { openEventStream, request, slowPost } from '../headless/http-client';
import { callApi, jsonLines, runBuiltCli } from './helpers';

let tmp: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-serve-'));
});

afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

interface Serve extends SpawnedCli {
  /** The parsed ready line. */
  ready: Promise<Record<string, unknown>>;
}

function serve(args: string[], env: NodeJS.ProcessEnv = {}): Serve {
  const run = spawnCli(['serve', ...args], children, env);
  const ready = run.firstLine.then((line) => JSON.parse(line) as Record<string, unknown>);
  ready.catch(() => undefined);
  return Object.assign(run, { ready });
}

const dataDir = (name: string) => path.join(tmp, name, 'profile');
const portOf = (url: unknown) => Number(new URL(String(url)).port);

describe('dets-console serve --json', () => {
  it('prints exactly one ready line, serves the page at its URL, and exits 0 on SIGTERM', async () => {
    const s = serve([
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
      '--json',
      '--data-dir',
      dataDir('sigterm'),
    ]);
    const ready = await s.ready;
    // DESIGN.md's key order: ready, ui, bank, sandbox.
    expect(Object.keys(ready)).toEqual(['ready', 'ui', 'bank', 'sandbox']);
    expect(ready.ready).toBe(true);
    expect(ready.ui).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(ready.bank).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.sandbox).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const page = await fetch(String(ready.ui));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toMatch(/<html/i);

    s.child.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    expect(s.stdout).toBe(`${JSON.stringify(ready)}\n`);
  });

  it('exits 0 on SIGINT', async () => {
    const s = serve([
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
      '--json',
      '--data-dir',
      dataDir('sigint'),
    ]);
    await s.ready;
    s.child.kill('SIGINT');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    expect(s.stdout.split('\n')).toHaveLength(2);
  });

  it('creates the data directory with mode 0700 and serves that profile', async () => {
    const dir = dataDir('mode');
    const s = serve([
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
      '--json',
      '--data-dir',
      dir,
    ]);
    const ready = await s.ready;
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const token = new URL(String(ready.ui)).searchParams.get('token')!;
    const info = await request({
      port: portOf(ready.ui),
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: token },
    });
    expect(info.json()).toMatchObject({ ok: true, value: { host: 'browser', dataDir: dir } });
    s.child.kill('SIGTERM');
    expect((await s.exit).code).toBe(0);
  });

  it('defaults to DETS_DATA_DIR, else the desktop app folder', async () => {
    const fromEnv = path.join(tmp, 'env-dir');
    const xdg = path.join(tmp, 'xdg');
    for (const [env, expected] of [
      [{ DETS_DATA_DIR: fromEnv }, fromEnv],
      [
        { XDG_CONFIG_HOME: xdg, HOME: tmp },
        process.platform === 'linux' ? path.join(xdg, 'DETS Console') : undefined,
      ],
    ] as const) {
      const s = serve(['--ui-port', '0', '--bank-port', '0', '--sandbox-port', '0', '--json'], env);
      const ready = await s.ready;
      const token = new URL(String(ready.ui)).searchParams.get('token')!;
      const info = await request({
        port: portOf(ready.ui),
        path: `${TRANSPORT.callPathPrefix}app.info`,
        method: 'POST',
        headers: { [TRANSPORT.tokenHeader]: token },
      });
      const value = (info.json() as { value: { dataDir: string } }).value;
      if (expected) expect(value.dataDir).toBe(expected);
      s.child.kill('SIGTERM');
      expect((await s.exit).code).toBe(0);
    }
  });

  it('finishes a request in flight and ends the open event stream when stopped', async () => {
    const s = serve([
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
      '--json',
      '--data-dir',
      dataDir('in-flight'),
    ]);
    const ready = await s.ready;
    const port = portOf(ready.ui);
    const token = new URL(String(ready.ui)).searchParams.get('token')!;

    const stream = openEventStream(port, `${TRANSPORT.eventsPath}?token=${token}`);
    await stream.waitFor(': connected');
    const slow = slowPost(
      port,
      `${TRANSPORT.callPathPrefix}app.info`,
      { [TRANSPORT.tokenHeader]: token },
      '{ }',
    );
    await slow.started;

    s.child.kill('SIGTERM');
    await s.waitForStderr('stopping');
    await stream.waitForEnd();
    expect(s.child.exitCode).toBeNull();

    slow.finish();
    const res = await slow.response;
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, value: { host: 'browser' } });
    expect(await s.exit).toEqual({ code: 0, signal: null });
  });
});

describe('dets-console serve: the sandbox listener', () => {
  it('is on by default, on --sandbox-port 7302, and off with --no-sandbox', async () => {
    const io: CliIo = {
      stdout: () => undefined,
      stderr: () => undefined,
      env: {},
      waitForStop: () => new Promise(() => undefined),
    };
    const dir = ['--data-dir', dataDir('flags')];
    expect((await parseServeFlags(dir, io)).sandboxPort).toBe(7302);
    expect((await parseServeFlags([...dir, '--sandbox-port', '0'], io)).sandboxPort).toBe(0);
    expect((await parseServeFlags([...dir, '--no-sandbox'], io)).sandboxPort).toBeNull();
  });

  it('serves the service endpoints at the URL in the ready line, with the profile in app.info', async () => {
    const s = serve([
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
      '--json',
      '--data-dir',
      dataDir('sandbox'),
    ]);
    const ready = await s.ready;
    expect(Object.keys(ready)).toEqual(['ready', 'ui', 'bank', 'sandbox']);
    const sandbox = String(ready.sandbox);

    const jwks = await fetch(`${sandbox}/api/v1/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await jwks.json()) as { keys: Array<{ kid?: unknown; kty?: unknown; d?: unknown }> };
    expect(body.keys.length).toBeGreaterThan(0);
    for (const key of body.keys) {
      expect(key).toMatchObject({ kty: 'RSA', kid: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }

    // The console's own API knows where its sandbox is.
    const token = new URL(String(ready.ui)).searchParams.get('token')!;
    const info = await request({
      port: portOf(ready.ui),
      path: `${TRANSPORT.callPathPrefix}app.info`,
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: token },
    });
    expect(info.json()).toMatchObject({ ok: true, value: { listeners: { sandbox } } });

    s.child.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    expect(s.stdout).toBe(`${JSON.stringify(ready)}\n`);
    await expect(fetch(`${sandbox}/api/v1/.well-known/jwks.json`)).rejects.toThrow();
  });

  it('names --sandbox-port and the port when it is in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const s = serve([
        '--json',
        '--ui-port',
        '0',
        '--bank-port',
        '0',
        '--sandbox-port',
        String(port),
        '--data-dir',
        dataDir('sandbox-in-use'),
      ]);
      expect((await s.exit).code).toBe(2);
      expect(s.stdout).toBe('');
      expect(s.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`--sandbox-port: port ${port} .*in use`)),
      ]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('dets-console serve: bad usage exits 2 with a one-line reason naming the flag', () => {
  it.each([
    [['--ui-port', 'abc'], '--ui-port'],
    [['--ui-port'], '--ui-port'],
    [['--nope'], '--nope'],
    [['--bank-port', '70000'], '--bank-port'],
    [['--sandbox-port', '-1'], '--sandbox-port'],
    [['--service-jwks-url', 'not a url'], '--service-jwks-url'],
    [['--service-jwks-url', 'file:///etc/passwd'], '--service-jwks-url'],
    [['--users', '/nonexistent/users.json'], '--users'],
    [['--host', 'example.com'], '--host'],
    [['--no-sandbox', '--sandbox-port', '7302'], '--sandbox-port'],
  ])('%j', async (args, flag) => {
    const s = serve(['--json', '--data-dir', dataDir('bad'), ...args]);
    expect((await s.exit).code).toBe(2);
    expect(s.stdout).toBe('');
    const lines = s.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(flag);
  });

  it('refuses a --users file that is not a JSON array', async () => {
    const file = path.join(tmp, 'users.json');
    await writeFile(file, '{"obj":"x"}');
    const s = serve([
      '--json',
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--no-sandbox',
      '--data-dir',
      dataDir('users'),
      '--users',
      file,
    ]);
    expect((await s.exit).code).toBe(2);
    expect(s.stderr).toMatch(/^dets-console serve: --users: .*JSON array/);
  });

  it('accepts every listener flag; --no-sandbox leaves the sandbox out', async () => {
    const file = path.join(tmp, 'users-ok.json');
    await writeFile(file, '[]');
    const s = serve([
      '--json',
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--no-sandbox',
      '--service-jwks-url',
      'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
      '--users',
      file,
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir('future'),
    ]);
    const ready = await s.ready;
    expect(Object.keys(ready)).toEqual(['ready', 'ui', 'bank']);
    expect(ready).not.toHaveProperty('sandbox');
    s.child.kill('SIGTERM');
    expect((await s.exit).code).toBe(0);
  });

  it('names --ui-port and the port when it is in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const s = serve([
        '--json',
        '--ui-port',
        String(port),
        '--bank-port',
        '0',
        '--sandbox-port',
        '0',
        '--data-dir',
        dataDir('in-use'),
      ]);
      expect((await s.exit).code).toBe(2);
      expect(s.stdout).toBe('');
      expect(s.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`--ui-port: port ${port} .*in use`)),
      ]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('dets-console serve: the bank endpoints', () => {
  const io: CliIo = {
    stdout: () => undefined,
    stderr: () => undefined,
    env: {},
    waitForStop: () => new Promise(() => undefined),
  };

  it('are on by default, on --bank-port 7301', async () => {
    const dir = ['--data-dir', dataDir('bank-flags')];
    expect((await parseServeFlags(dir, io)).bankPort).toBe(7301);
    expect((await parseServeFlags([...dir, '--bank-port', '0'], io)).bankPort).toBe(0);
    expect((await parseServeFlags([...dir, '--no-sandbox'], io)).bankPort).toBe(7301);
  });

  it('answer GET /user_auth without X-Session-ID with 401 check "present", at the URL app.info reports', async () => {
    const s = serve([
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
      '--json',
      '--data-dir',
      dataDir('bank'),
    ]);
    const ready = await s.ready;
    const bank = String(ready.bank);
    expect(bank).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const res = await fetch(`${bank}/user_auth`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({
      error: 'unauthorized',
      check: 'present',
      detail: expect.any(String),
    });

    const info = (await callApi(String(ready.ui), 'app.info')) as { listeners: { bank?: string } };
    expect(info.listeners.bank?.replace(/\/$/, '')).toBe(bank);

    s.child.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    await expect(fetch(`${bank}/user_auth`)).rejects.toThrow();
  });

  it('names --bank-port and the port when it is in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const s = serve([
        '--json',
        '--ui-port',
        '0',
        '--bank-port',
        String(port),
        '--no-sandbox',
        '--data-dir',
        dataDir('bank-in-use'),
      ]);
      expect((await s.exit).code).toBe(2);
      expect(s.stdout).toBe('');
      expect(s.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`--bank-port: port ${port} .*in use`)),
      ]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('passes --service-jwks-url to the bank endpoints', async () => {
    const jwksUrl = 'http://127.0.0.1:9/api/v1/.well-known/jwks.json';
    const s = serve([
      '--json',
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--no-sandbox',
      '--service-jwks-url',
      jwksUrl,
      '--data-dir',
      dataDir('jwks-url'),
    ]);
    const ready = await s.ready;
    const status = (await callApi(String(ready.ui), 'bank.status')) as { service_jwks_url: string | null };
    expect(status.service_jwks_url).toBe(jwksUrl);
    s.child.kill('SIGTERM');
    expect((await s.exit).code).toBe(0);
  });

  it('imports the --users customers before answering (secret keys never listed)', async () => {
    const file = path.join(tmp, 'users-good.json');
    await writeFile(
      file,
      JSON.stringify([
        {
          obj: 'DE89370400440532013000',
          sub: 'ops@bank.example',
          external_id: 'cust-1',
          phone: '+4915112345678',
          key: 'user-secret-key-1',
          first_name: 'Ana',
        },
        { obj: '+4915100000002', external_id: 'cust-2', phone: '+4915100000002', key: 'user-secret-key-2' },
      ]),
    );
    const s = serve([
      '--json',
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--no-sandbox',
      '--users',
      file,
      '--data-dir',
      dataDir('users-good'),
    ]);
    const ready = await s.ready;
    const customers = (await callApi(String(ready.ui), 'bank.customers')) as Array<Record<string, unknown>>;
    expect(customers.map((c) => c.obj).sort()).toEqual(['+4915100000002', 'DE89370400440532013000']);
    expect(JSON.stringify(customers)).not.toContain('user-secret-key');
    s.child.kill('SIGTERM');
    expect((await s.exit).code).toBe(0);
  });

  it('refuses --users content the bank refuses: exit 2, one line naming --users and the field', async () => {
    const file = path.join(tmp, 'users-bad-field.json');
    await writeFile(
      file,
      JSON.stringify([
        { obj: 'DE89370400440532013000', external_id: 'cust-1', phone: '+4915112345678', key: 'k1' },
        { obj: '+4915100000002', phone: '+4915100000002', key: 'k2' },
      ]),
    );
    const s = serve([
      '--json',
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--no-sandbox',
      '--users',
      file,
      '--data-dir',
      dataDir('users-bad-field'),
    ]);
    expect((await s.exit).code).toBe(2);
    expect(s.stdout).toBe('');
    const lines = s.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dets-console serve: --users: /);
    expect(lines[0]).toContain('external_id');
  });

  it('finishes a notification in flight when stopped, and lists it and a callback made just before', async () => {
    const dir = dataDir('bank-in-flight');
    const s = serve(['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox', '--data-dir', dir]);
    const ready = await s.ready;
    const bank = String(ready.bank);
    expect((await fetch(`${bank}/user_auth`)).status).toBe(401);
    const id = randomUUID();
    const slow = slowPost(
      portOf(bank),
      '/api/svc/notify/transfer',
      {},
      JSON.stringify({ transaction_id: id }),
    );
    await slow.started;

    s.child.kill('SIGTERM');
    await s.waitForStderr('stopping');
    expect(s.child.exitCode).toBeNull();
    slow.finish();
    expect((await slow.response).status).toBe(200);
    expect(await s.exit).toEqual({ code: 0, signal: null });

    const events = await runBuiltCli(['events', '--data-dir', dir, '--json']);
    expect(events.code, events.stderr).toBe(0);
    expect(jsonLines(events.stdout)).toEqual([
      expect.objectContaining({ kind: 'callback', path: '/user_auth', status: 401, failed_check: 'present' }),
      expect.objectContaining({
        kind: 'notification',
        path: '/api/svc/notify/transfer',
        transaction_id: id,
        outcome: 'accepted',
      }),
    ]);
  });

  it('flushes the event store on SIGTERM: a notification acknowledged just before is listed by events', async () => {
    const dir = dataDir('flush');
    const s = serve(['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox', '--data-dir', dir]);
    const ready = await s.ready;
    const id = randomUUID();
    const res = await fetch(`${String(ready.bank)}/api/svc/notify/pay-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: id }),
    });
    expect(res.status).toBe(200);
    s.child.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });

    const events = await runBuiltCli(['events', '--data-dir', dir, '--kind', 'notification', '--json']);
    expect(events.code, events.stderr).toBe(0);
    expect(jsonLines(events.stdout)).toEqual([
      expect.objectContaining({
        kind: 'notification',
        path: '/api/svc/notify/pay-in',
        transaction_id: id,
        outcome: 'accepted',
      }),
    ]);
  });
});
