/**
 * A scenario recorded after the fact replays where the recording itself cannot (issue 28; DESIGN.md
 * "Scenarios"): a sandbox walkthrough completed through `serve`, recorded with `scenario record
 * --walkthrough sandbox`, then a minute later (the sandbox's tokens live 1 s here, plus the
 * bank's 60 s leeway) the stored X-Session-ID sent byte for byte is refused at `exp`, which is why
 * scenarios re-sign, while `scenario run` of the recording against the console's own bank (told
 * to trust the runner's JWKS) passes every step with fresh tokens and fresh transaction_ids.
 *
 * The wait is real: the bank judges tokens with its own clock.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { callApi, ROOT, runBuiltCli, spawnServe, type ServeChild } from './helpers';
import { cliTestFile } from './support/spawn-cli';

const cli = cliTestFile('dets-scenario-record-');
const ENV = { DETS_VAULT_PASSPHRASE: 'scenario record test passphrase' };
/** The sandbox's token lifetime here: its tokens are past exp + leeway a minute later. */
const TOKEN_TTL_S = 1;
const LEEWAY_S = 60;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('scenario record --walkthrough, replayed a minute later', () => {
  let serve: ServeChild;
  let ui = '';
  let bank = '';
  let dataDir = '';
  let stored: { token: string; exp: number; path: string; obj: string; sub: string } | null = null;
  let file = '';

  beforeAll(async () => {
    dataDir = cli.dataDir('walk');
    serve = spawnServe(
      ['--data-dir', dataDir, '--ui-port', '0', '--bank-port', '0', '--sandbox-port', '0', '--json'],
      ENV,
    );
    const ready = await serve.ready;
    ui = ready.ui;
    bank = ready.bank!;
    await callApi(ui, 'sandbox.updateSettings', { token_ttl_seconds: TOKEN_TTL_S });
    for (const step of [
      'key',
      'register',
      'compose',
      'authenticate',
      'callbacks',
      'sign-in',
      'notifications',
    ]) {
      await callApi(ui, 'walkthrough.run', { step });
    }
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
  });

  it('the walkthrough is complete through its sign-in and notifications', async () => {
    const state = (await callApi(ui, 'walkthrough.state')) as {
      steps: Array<{ id: string; state: string; event_ids: string[] }>;
    };
    const byId = Object.fromEntries(state.steps.map((s) => [s.id, s]));
    expect(byId['sign-in']!.state).toBe('done');
    expect(byId.notifications!.state).toBe('done');
    const callbackId = byId['sign-in']!.event_ids[0]!;
    const event = (await callApi(ui, 'events.get', { id: callbackId })) as {
      path: string;
      request: { headers: Record<string, string> };
      token: { payload: { exp: number; obj: string; sub: string } };
    };
    const { exp, obj, sub } = event.token.payload;
    stored = { token: event.request.headers['x-session-id']!, exp, path: event.path, obj, sub };
    expect(stored.token.split('.')).toHaveLength(3);
  });

  it('scenario record writes the sign-in and the notifications as steps, with no token and no transaction_id', async () => {
    file = path.join(cli.tmp, 'walkthrough.json');
    const r = await runBuiltCli(
      ['scenario', 'record', '--walkthrough', 'sandbox', '--out', file, '--data-dir', dataDir],
      { env: ENV },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${file}: `);
    const text = await readFile(file, 'utf8');
    const scenario = JSON.parse(text) as {
      name: string;
      steps: Array<{ name: string; kind: string; event?: string }>;
    };
    expect(scenario.name).toBe('walkthrough');
    const kinds = scenario.steps.map((s) => s.kind);
    expect(kinds).toContain('sign-in');
    expect(kinds).toContain('notification');
    expect(scenario.steps.filter((s) => s.kind === 'notification').map((s) => s.event)).toEqual(
      expect.arrayContaining(['pay-in', 'pay-out']),
    );
    expect(text).not.toContain(stored!.token);
    expect(text).not.toMatch(/"transaction_id"/);
    // Never over an existing file.
    const again = await runBuiltCli(
      ['scenario', 'record', '--walkthrough', 'sandbox', '--out', file, '--data-dir', dataDir],
      { env: ENV },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--out: ');
  });

  it('a minute later: byte for byte fails exp; the scenario, re-signed, passes against the console’s own bank', async () => {
    // Past the stored token's exp and the bank's leeway (the bank's own clock decides).
    const waitMs = (stored!.exp + LEEWAY_S + 2) * 1000 - Date.now();
    expect(waitMs).toBeLessThan((TOKEN_TTL_S + LEEWAY_S + 10) * 1000);
    if (waitMs > 0) await sleep(waitMs);

    const verbatim = await fetch(`${bank}${stored!.path}`, { headers: { 'X-Session-ID': stored!.token } });
    expect(verbatim.status).toBe(401);
    expect(((await verbatim.json()) as { check: string }).check).toBe('exp');

    // The console's own bank trusts the runner's JWKS, as for a conformance run.
    const jwksPort = await freePort();
    await callApi(ui, 'conformance.trustRunnerJwks', { jwks_port: jwksPort });
    const r = await runBuiltCli([
      'scenario',
      'run',
      file,
      '--bank-auth-url',
      bank,
      '--notify-url',
      bank,
      '--jwks-port',
      String(jwksPort),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n')[1]!) as {
      failed: number;
      passed: number;
      cases: Array<{ id: string; status: string; detail: string }>;
    };
    expect(report.failed).toBe(0);
    expect(report.cases.every((c) => c.status === 'passed')).toBe(true);
    // Fresh: another token than the recorded one, a kid of the runner's.
    expect(r.stdout + r.stderr).not.toContain(stored!.token);

    // The example the docs ship runs green too, for this bank's customer (--obj/--sub).
    const example = await runBuiltCli([
      'scenario',
      'run',
      path.join(ROOT, 'docs/scenarios/sign-in-and-pay-in.json'),
      '--bank-auth-url',
      bank,
      '--notify-url',
      bank,
      '--obj',
      stored!.obj,
      '--sub',
      stored!.sub,
      '--jwks-port',
      String(jwksPort),
    ]);
    expect(example.code, example.stdout + example.stderr).toBe(0);
  }, 180_000);
});
