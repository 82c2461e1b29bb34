/**
 * `dets-console serve` as scripts and CI drive it (DESIGN.md "Command line"): the built CLI in
 * its own process, the --json ready line, port 0, exit codes, and a clean stop on signals.
 */
import { randomUUID } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseServeFlags } from '../../electron/cli/commands/serve';
import { TRANSPORT } from '../../electron/contract';
import { openEventStream, request, slowPost } from '../headless/http-client';
import { withBusyPort } from '../support/free-port';
import { callApi, listEvents, notify, quietIo as io, uiToken } from './helpers';
import { cliTestFile, failedRun, type SpawnedCli } from './support/spawn-cli';

const cli = cliTestFile('dets-serve-');
const { dataDir } = cli;
const serve = (args: string[], env: NodeJS.ProcessEnv = {}): SpawnedCli => cli.spawn(['serve', ...args], env);

/** All three listeners on port 0, the --json ready line. */
const ALL_LISTENERS = ['--ui-port', '0', '--bank-port', '0', '--sandbox-port', '0', '--json'];
/** The UI and bank listeners on port 0, no sandbox, the --json ready line. */
const NO_SANDBOX = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];

const portOf = (url: unknown) => Number(new URL(String(url)).port);

/** POSTs app.info to the UI listener of a ready line, with its token; resolves to the envelope. */
async function appInfo(ready: Record<string, unknown>): Promise<unknown> {
  const info = await request({
    port: portOf(ready.ui),
    path: `${TRANSPORT.callPathPrefix}app.info`,
    method: 'POST',
    headers: { [TRANSPORT.tokenHeader]: uiToken(ready.ui) },
  });
  return info.json();
}

/**
 * Starts `serve --json ARGS(port) --data-dir <NAME>` with `port` taken by another listener:
 * exit 2, nothing on stdout, and one stderr line naming FLAG and the port.
 */
const refusesBusyPort = (flag: string, name: string, args: (port: string) => string[]) =>
  withBusyPort(async (port) => {
    const s = serve(['--json', ...args(String(port)), '--data-dir', dataDir(name)]);
    expect(await failedRun(s, 2)).toEqual([
      expect.stringMatching(new RegExp(`${flag}: port ${port} .*in use`)),
    ]);
  });

/** Writes `users` as JSON to a file in the temp folder; resolves to its path. */
async function usersFile(name: string, users: unknown): Promise<string> {
  const usersPath = path.join(cli.tmp, name);
  await writeFile(usersPath, typeof users === 'string' ? users : JSON.stringify(users));
  return usersPath;
}

describe('dets-console serve --json', () => {
  it('prints exactly one ready line, serves the page at its URL, and exits 0 on SIGTERM', async () => {
    const s = serve([...ALL_LISTENERS, '--data-dir', dataDir('sigterm')]);
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

    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(s.stdout).toBe(`${JSON.stringify(ready)}\n`);
  });

  it('exits 0 on SIGINT', async () => {
    const s = serve([...ALL_LISTENERS, '--data-dir', dataDir('sigint')]);
    await s.ready;
    expect(await s.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(s.stdout.split('\n')).toHaveLength(2);
  });

  it('creates the data directory with mode 0700 and serves that profile', async () => {
    const dir = dataDir('mode');
    const s = serve([...ALL_LISTENERS, '--data-dir', dir]);
    const ready = await s.ready;
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await appInfo(ready)).toMatchObject({ ok: true, value: { host: 'browser', dataDir: dir } });
    expect((await s.stop()).code).toBe(0);
  });

  it('defaults to DETS_DATA_DIR, else the desktop app folder', async () => {
    const fromEnv = path.join(cli.tmp, 'env-dir');
    const xdg = path.join(cli.tmp, 'xdg');
    for (const [env, expected] of [
      [{ DETS_DATA_DIR: fromEnv }, fromEnv],
      [
        { XDG_CONFIG_HOME: xdg, HOME: cli.tmp },
        process.platform === 'linux' ? path.join(xdg, 'DETS Console') : undefined,
      ],
    ] as const) {
      const s = serve(ALL_LISTENERS, env);
      const { value } = (await appInfo(await s.ready)) as { value: { dataDir: string } };
      if (expected) expect(value.dataDir).toBe(expected);
      expect((await s.stop()).code).toBe(0);
    }
  });

  it('finishes a request in flight and ends the open event stream when stopped', async () => {
    const s = serve([...ALL_LISTENERS, '--data-dir', dataDir('in-flight')]);
    const ready = await s.ready;
    const port = portOf(ready.ui);
    const token = uiToken(ready.ui);

    const stream = openEventStream(port, TRANSPORT.eventsPath, { [TRANSPORT.tokenHeader]: token });
    await stream.waitFor(': connected');
    const slow = slowPost(
      port,
      `${TRANSPORT.callPathPrefix}app.info`,
      { [TRANSPORT.tokenHeader]: token },
      '{ }',
    );
    await slow.started;

    const stopped = s.stop();
    await s.waitForStderr('stopping');
    await stream.waitForEnd();
    expect(s.child.exitCode).toBeNull();

    slow.finish();
    const res = await slow.response;
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, value: { host: 'browser' } });
    expect(await stopped).toEqual({ code: 0, signal: null });
  });
});

describe('dets-console serve: the sandbox listener', () => {
  it('is on by default, on --sandbox-port 7302, and off with --no-sandbox', async () => {
    const dir = ['--data-dir', dataDir('flags')];
    expect((await parseServeFlags(dir, io)).sandboxPort).toBe(7302);
    expect((await parseServeFlags([...dir, '--sandbox-port', '0'], io)).sandboxPort).toBe(0);
    expect((await parseServeFlags([...dir, '--no-sandbox'], io)).sandboxPort).toBeNull();
  });

  it('serves the service endpoints at the URL in the ready line, with the profile in app.info', async () => {
    const s = serve([...ALL_LISTENERS, '--data-dir', dataDir('sandbox')]);
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
    expect(await appInfo(ready)).toMatchObject({ ok: true, value: { listeners: { sandbox } } });

    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(s.stdout).toBe(`${JSON.stringify(ready)}\n`);
    await expect(fetch(`${sandbox}/api/v1/.well-known/jwks.json`)).rejects.toThrow();
  });

  it('names --sandbox-port and the port when it is in use', () =>
    refusesBusyPort('--sandbox-port', 'sandbox-in-use', (port) => [
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--sandbox-port',
      port,
    ]));
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
    const lines = await failedRun(serve(['--json', '--data-dir', dataDir('bad'), ...args]), 2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(flag);
  });

  it('refuses a --users file that is not a JSON array', async () => {
    const users = await usersFile('users.json', '{"obj":"x"}');
    const s = serve([...NO_SANDBOX, '--data-dir', dataDir('users'), '--users', users]);
    expect((await s.exit).code).toBe(2);
    expect(s.stderr).toMatch(/^dets-console serve: --users: .*JSON array/);
  });

  it('accepts every listener flag; --no-sandbox leaves the sandbox out', async () => {
    const users = await usersFile('users-ok.json', '[]');
    const s = serve([
      ...NO_SANDBOX,
      '--service-jwks-url',
      'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
      '--users',
      users,
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir('future'),
    ]);
    const ready = await s.ready;
    expect(Object.keys(ready)).toEqual(['ready', 'ui', 'bank']);
    expect(ready).not.toHaveProperty('sandbox');
    expect((await s.stop()).code).toBe(0);
  });

  it('names --ui-port and the port when it is in use', () =>
    refusesBusyPort('--ui-port', 'in-use', (port) => [
      '--ui-port',
      port,
      '--bank-port',
      '0',
      '--sandbox-port',
      '0',
    ]));
});

describe('dets-console serve: the bank endpoints', () => {
  it('are on by default, on --bank-port 7301', async () => {
    const dir = ['--data-dir', dataDir('bank-flags')];
    expect((await parseServeFlags(dir, io)).bankPort).toBe(7301);
    expect((await parseServeFlags([...dir, '--bank-port', '0'], io)).bankPort).toBe(0);
    expect((await parseServeFlags([...dir, '--no-sandbox'], io)).bankPort).toBe(7301);
  });

  it('answer GET /user_auth without X-Session-ID with 401 check "present", at the URL app.info reports', async () => {
    const s = serve([...ALL_LISTENERS, '--data-dir', dataDir('bank')]);
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

    expect(await s.stop()).toEqual({ code: 0, signal: null });
    await expect(fetch(`${bank}/user_auth`)).rejects.toThrow();
  });

  it('names --bank-port and the port when it is in use', () =>
    refusesBusyPort('--bank-port', 'bank-in-use', (port) => [
      '--ui-port',
      '0',
      '--bank-port',
      port,
      '--no-sandbox',
    ]));

  it('passes --service-jwks-url to the bank endpoints', async () => {
    const jwksUrl = 'http://127.0.0.1:9/api/v1/.well-known/jwks.json';
    const s = serve([...NO_SANDBOX, '--service-jwks-url', jwksUrl, '--data-dir', dataDir('jwks-url')]);
    const ready = await s.ready;
    const status = (await callApi(String(ready.ui), 'bank.status')) as { service_jwks_url: string | null };
    expect(status.service_jwks_url).toBe(jwksUrl);
    expect((await s.stop()).code).toBe(0);
  });

  it('imports the --users customers before answering (secret keys never listed)', async () => {
    const users = await usersFile('users-good.json', [
      {
        obj: 'DE89370400440532013000',
        sub: 'ops@bank.example',
        external_id: 'cust-1',
        phone: '+4915112345678',
        key: 'user-secret-key-1',
        first_name: 'Ana',
      },
      { obj: '+4915100000002', external_id: 'cust-2', phone: '+4915100000002', key: 'user-secret-key-2' },
    ]);
    const s = serve([...NO_SANDBOX, '--users', users, '--data-dir', dataDir('users-good')]);
    const ready = await s.ready;
    const customers = (await callApi(String(ready.ui), 'bank.customers')) as Array<Record<string, unknown>>;
    expect(customers.map((c) => c.obj).sort()).toEqual(['+4915100000002', 'DE89370400440532013000']);
    expect(JSON.stringify(customers)).not.toContain('user-secret-key');
    expect((await s.stop()).code).toBe(0);
  });

  it('refuses --users content the bank refuses: exit 2, one line naming --users and the field', async () => {
    const users = await usersFile('users-bad-field.json', [
      { obj: 'DE89370400440532013000', external_id: 'cust-1', phone: '+4915112345678', key: 'k1' },
      { obj: '+4915100000002', phone: '+4915100000002', key: 'k2' },
    ]);
    const s = serve([...NO_SANDBOX, '--users', users, '--data-dir', dataDir('users-bad-field')]);
    const lines = await failedRun(s, 2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dets-console serve: --users: /);
    expect(lines[0]).toContain('external_id');
  });

  it('finishes a notification in flight when stopped, and lists it and a callback made just before', async () => {
    const dir = dataDir('bank-in-flight');
    const s = serve([...NO_SANDBOX, '--data-dir', dir]);
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

    const stopped = s.stop();
    await s.waitForStderr('stopping');
    expect(s.child.exitCode).toBeNull();
    slow.finish();
    expect((await slow.response).status).toBe(200);
    expect(await stopped).toEqual({ code: 0, signal: null });

    expect(await listEvents(dir)).toEqual([
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
    const s = serve([...NO_SANDBOX, '--data-dir', dir]);
    const ready = await s.ready;
    const id = randomUUID();
    const res = await notify(ready.bank, 'pay-in', JSON.stringify({ transaction_id: id }));
    expect(res.status).toBe(200);
    expect(await s.stop()).toEqual({ code: 0, signal: null });

    expect(await listEvents(dir, '--kind', 'notification')).toEqual([
      expect.objectContaining({
        kind: 'notification',
        path: '/api/svc/notify/pay-in',
        transaction_id: id,
        outcome: 'accepted',
      }),
    ]);
  });
});
