/**
 * The team hub (issue 30 item 1; DESIGN.md "Team hub"): `serve --team` with TLS (certificates
 * made by openssl here), three members of each role made by `team add`. No token → 401; a
 * viewer's mutation → 403 and nothing changes; an admin's change → an audit event naming them,
 * in `events --kind audit`; a revoked token → 401 on its next request; off loopback without TLS
 * the hub refuses to start.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../electron/contract';
import { makeCerts, type TestCerts } from '../core/tunnel/certs';
import { httpsCall } from '../core/tunnel/https-get';
import { jsonLines, runBuiltCli } from './helpers';
import { cliTestFile, failedRun } from './support/spawn-cli';
import { addMember, hubArgs, tlsArgs } from './support/team';

const cli = cliTestFile('dets-team-hub-');
let certs: TestCerts;
let ca = '';
beforeAll(async () => {
  certs = await makeCerts(path.join(cli.tmp, 'certs'));
  ca = await readFile(certs.cert, 'utf8');
});

function call(ui: string, method: string, token: string | null, input?: unknown) {
  return httpsCall(new URL(`${TRANSPORT.callPathPrefix}${method}`, ui).href, {
    ca,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { [TRANSPORT.tokenHeader]: token }),
    },
    ...(input === undefined ? {} : { body: JSON.stringify(input) }),
  });
}

describe('serve --team', () => {
  it('lets members in by role over TLS, refuses the rest, and audits every change by name', async () => {
    const dir = cli.dataDir('hub');
    const tokens: Record<string, string> = {};
    for (const role of ['viewer', 'operator', 'admin'])
      for (const n of [1, 2, 3])
        tokens[`${role}${n}`] = await addMember(['--data-dir', dir], `${role}${n}@bank.example`, role);
    // Stored hashed: no token appears in the profile.
    const file = await readFile(path.join(dir, 'team', 'members.json'), 'utf8');
    for (const t of Object.values(tokens)) expect(file).not.toContain(t);

    const s = cli.spawn(hubArgs([...tlsArgs(certs), '--data-dir', dir]));
    const ready = await s.ready;
    expect(String(ready.ui)).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
    const ui = new URL('/', String(ready.ui)).href;

    // No token, a wrong token: 401, nothing answered.
    expect((await call(ui, 'keys.list', null)).status).toBe(401);
    expect((await call(ui, 'keys.list', 'dets_m_wrong')).status).toBe(401);
    const events = await httpsCall(new URL(TRANSPORT.eventsPath, ui).href, { ca });
    expect(events.status).toBe(401);

    // Every member reads; the session names them and their role.
    for (const [who, token] of Object.entries(tokens)) {
      const session = JSON.parse((await call(ui, 'team.session', token)).body) as { value: unknown };
      expect(session.value).toEqual({
        hub: '127.0.0.1',
        member: `${who}@bank.example`,
        role: who.replace(/\d$/, ''),
      });
      expect((await call(ui, 'keys.list', token)).status).toBe(200);
    }

    // A viewer's mutation: 403, and nothing changed.
    const denied = await call(ui, 'keys.generate', tokens.viewer1!, { alg: 'RS256', bits: 2048 });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const none = JSON.parse((await call(ui, 'keys.list', tokens.admin1!)).body) as { value: unknown[] };
    expect(none.value).toEqual([]);
    // An operator may not touch keys either, but may act on the bank.
    expect((await call(ui, 'keys.generate', tokens.operator2!, { alg: 'RS256', bits: 2048 })).status).toBe(
      403,
    );

    // An admin's change: done, and audited naming them.
    const made = await call(ui, 'keys.generate', tokens.admin2!, {
      alg: 'RS256',
      bits: 2048,
      kid: 'hub-key-1',
    });
    expect(made.status).toBe(200);
    expect(JSON.parse(made.body), made.body).toMatchObject({ ok: true });

    // A revoked token: 401 on its next request, the hub still running.
    const removed = await runBuiltCli(['team', 'remove', 'admin3@bank.example', '--data-dir', dir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await call(ui, 'keys.list', tokens.admin3!)).status).toBe(401);
    expect((await call(ui, 'keys.list', tokens.admin1!)).status).toBe(200);

    expect(await s.stop()).toEqual({ code: 0, signal: null });
    const audit = jsonLines(
      (await runBuiltCli(['events', '--kind', 'audit', '--json', '--data-dir', dir])).stdout,
    );
    expect(audit).toEqual([
      expect.objectContaining({
        kind: 'audit',
        path: 'keys.generate',
        sub: 'viewer1@bank.example',
        status: 403,
        failed_check: 'FORBIDDEN',
      }),
      expect.objectContaining({
        kind: 'audit',
        path: 'keys.generate',
        sub: 'operator2@bank.example',
        status: 403,
      }),
      expect.objectContaining({
        kind: 'audit',
        path: 'keys.generate',
        sub: 'admin2@bank.example',
        status: 200,
        failed_check: null,
        obj: 'hub-key-1',
      }),
    ]);
    // No token in what the hub recorded or printed.
    const all = (await runBuiltCli(['events', '--json', '--data-dir', dir])).stdout + s.stdout + s.stderr;
    for (const t of Object.values(tokens)) expect(all).not.toContain(t);
  }, 120_000);

  it('refuses to start off loopback without TLS (exit 2, one line naming the flags)', async () => {
    const s = cli.spawn([
      'serve',
      '--team',
      '--host',
      '0.0.0.0',
      '--json',
      '--data-dir',
      cli.dataDir('plain'),
    ]);
    const lines = await failedRun(s, 2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--team: .*requires --tls-cert and --tls-key/);
  });

  it('refuses bad member input at the door of `team` (exit 2, naming what)', async () => {
    const dir = cli.dataDir('bad');
    const role = await runBuiltCli(['team', 'add', 'eve', '--role', 'root', '--data-dir', dir]);
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/--role: .*root.*viewer, operator or admin/);
    const name = await runBuiltCli(['team', 'add', 'has space', '--role', 'viewer', '--data-dir', dir]);
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/NAME: /);
    await addMember(['--data-dir', dir], 'sam', 'viewer');
    const twice = await runBuiltCli(['team', 'add', 'sam', '--role', 'admin', '--data-dir', dir]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/exists already/);
    const gone = await runBuiltCli(['team', 'remove', 'nobody', '--data-dir', dir]);
    expect(gone.code).toBe(2);
    const list = JSON.parse(
      (await runBuiltCli(['team', 'list', '--json', '--data-dir', dir])).stdout,
    ) as unknown[];
    expect(list).toEqual([expect.objectContaining({ name: 'sam', role: 'viewer' })]);
    expect(JSON.stringify(list)).not.toMatch(/sha256|dets_m_/);
  });
});
