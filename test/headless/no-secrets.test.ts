/**
 * Issue 13 item 7: secrets stay out of the page. A real core (passphrase vault with a signing
 * key, the sandbox and the bank endpoints on 127.0.0.1:0, a customer with a known secret key who
 * has signed in through the sandbox) behind the real headless server; then EVERY read method of
 * the contract table is called over HTTP, the way the page calls it, and no answer may carry the
 * customer's secret key or any private key material. A method the table gains later fails this
 * test until it is sorted into reads (with a sample argument) or actions.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES, TRANSPORT, type MethodName } from '../../electron/contract';
import { EXPORT_WITH_KEYS_CONFIRMATION } from '../../electron/contract/schemas/bank';
import { WALKTHROUGH_STEP_IDS } from '../../electron/contract/schemas/walkthrough';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { callPath, startHeadlessServer, type HeadlessServer } from '../../electron/headless';
import { request } from './http-client';

const SECRET = `known-secret-${randomBytes(12).toString('hex')}`;
const OBJ = 'DE89370400440532013000';
const SUB = 'secrets@bank.example';

let tmp: string;
let core: ConsoleCore;
let server: HeadlessServer;
let kid: string;
let token: string;
let eventIds: string[] = [];
let deliveryIds: string[] = [];
/** Answers of the actions run to set the scene: they reach the page too. */
const actionAnswers: Array<[string, unknown]> = [];

async function call(method: MethodName, input?: unknown): Promise<unknown> {
  const res = await request({
    port: server.port,
    path: callPath(method),
    method: 'POST',
    headers: { [TRANSPORT.tokenHeader]: server.token, 'content-type': 'application/json' },
    body: input === undefined ? '' : JSON.stringify(input),
  });
  const envelope = res.json() as { ok: boolean; value?: unknown; error?: { message: string } };
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error?.message}`);
  return envelope.value;
}

async function act(method: MethodName, input?: unknown): Promise<unknown> {
  const value = await call(method, input);
  actionAnswers.push([method, value]);
  return value;
}

/** The secret itself, a private JWK member, or PEM private key text. */
function leaks(text: string): string[] {
  const found: string[] = [];
  if (text.includes(SECRET)) found.push('the customer secret key');
  if (/"d"\s*:/.test(text)) found.push('a private JWK member "d"');
  if (/PRIVATE KEY/.test(text)) found.push('PEM private key material');
  return found;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-no-secrets-'));
  core = await createConsoleCore({
    dataDir: tmp,
    host: 'browser',
    env: { DETS_VAULT_PASSPHRASE: 'no secrets test passphrase' },
  });
  await core.listenSandbox({ host: '127.0.0.1', port: 0 });
  await core.listenBank({ host: '127.0.0.1', port: 0 });
  server = await startHeadlessServer({ core, port: 0, rendererDir: path.join(tmp, 'no-renderer') });

  // The walkthrough makes a vault key, registers it, authenticates, runs a sign-in and the
  // notifications: every kind of event exists afterwards.
  for (const step of WALKTHROUGH_STEP_IDS.filter((s) => s !== 'rotate')) {
    await act('walkthrough.run', { step });
  }
  await act('bank.saveCustomer', {
    obj: OBJ,
    sub: SUB,
    external_id: 'c-secret-1',
    phone: '+4915112345678',
    key: SECRET,
  });
  kid = ((await call('keys.list')) as Array<{ kid: string; status: string }>).find(
    (k) => k.status === 'active',
  )!.kid;
  token = ((await act('jwt.sign', { kid, obj: OBJ, sub: SUB })) as { token: string }).token;
  const envs = (await call('env.list')) as {
    environments: Array<{ id: string; counterparty_guid: string | null }>;
  };
  const guid = envs.environments.find((e) => e.id === 'sandbox')!.counterparty_guid!;
  const signIn = (await act('sandbox.signIn', { counterparty_guid: guid, token })) as {
    ok: boolean;
    user: Record<string, unknown>;
  };
  expect(signIn.ok).toBe(true);
  expect(String(signIn.user.key)).toMatch(/^<masked: \d+ characters>$/);
  await act('sandbox.notify', { counterparty_guid: guid, event: 'pay-in' });
  await act('conformance.selfCheck');
  eventIds = (
    (await call('events.query', { limit: 10_000 })) as { events: Array<{ id: string }> }
  ).events.map((e) => e.id);
  deliveryIds = ((await call('sandbox.deliveries', undefined)) as Array<{ delivery_id: string }>).map(
    (d) => d.delivery_id,
  );
  expect(deliveryIds.length).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

/** Read methods and the arguments they are called with (several calls where the argument matters). */
const READS: Partial<Record<MethodName, () => unknown[]>> = {
  'app.info': () => [undefined],
  'team.session': () => [undefined],
  'team.connection': () => [undefined],
  'team.routes': () => [undefined],
  'inspector.inspect': () => [{ token }, { token, expectedObj: OBJ, expectedSub: SUB }],
  'sandbox.status': () => [undefined],
  'sandbox.traces': () => [undefined, { limit: 1000 }],
  'sandbox.deliveries': () => [undefined, { state: 'delivered' }],
  'sandbox.delivery': () => deliveryIds.map((delivery_id) => ({ delivery_id })),
  'vault.status': () => [undefined],
  'keys.list': () => [undefined],
  'keys.export': () => [
    { kid, format: 'jwk' },
    { kid, format: 'jwks' },
    { kid, format: 'pem' },
  ],
  'env.list': () => [undefined],
  'service.listJwks': () => [undefined],
  'service.fetchJwks': () => [undefined],
  'service.exchanges': () => [undefined],
  'events.query': () => [undefined, { limit: 10_000 }, { kind: 'callback' }, { text: OBJ }],
  'events.get': () => eventIds.map((id) => ({ id })),
  'events.export': () => [{ format: 'json' }, { format: 'csv' }],
  'events.health': () => [undefined],
  'events.retention': () => [undefined],
  'events.stats': () => [{}, { query: { kind: 'callback' }, by: 'failed_check' }, { query: { text: OBJ } }],
  'tunnel.status': () => [undefined],
  'bank.status': () => [undefined],
  'bank.customers': () => [undefined],
  'bank.exportCustomers': () => [undefined],
  'bank.exportCustomersWithKeys': () => [{ confirm: EXPORT_WITH_KEYS_CONFIRMATION }],
  'walkthrough.state': () => [undefined],
  'walkthrough.exportPack': () => [undefined, { full_tokens: true }],
  'conformance.lastReport': () => [undefined],
  'conformance.export': () => [{ format: 'json' }, { format: 'junit' }],
  'scenario.record': () => [
    { name: 'no-secrets', event_ids: eventIds.slice(0, 100) },
    { name: 'no-secrets', walkthrough: 'sandbox' },
  ],
  // The profile folder itself: its *.json files (vault.json among them) are listed as scenarios.
  'scenario.list': () => [{ folder: tmp }],
};

/** Methods that change something; the ones run above had their answers checked too. */
const ACTIONS = new Set<MethodName>([
  // Attaching (issue 30 item 2): the member token and the hub's answers are tested in
  // test/core/team/attached-core.test.ts and the e2e team-attach test.
  'team.attach',
  'team.detach',
  'team.addRoute',
  'team.removeRoute',
  // Signs a fresh sandbox service token on request (issue 26 item 5, "curl with a fresh token"):
  // the token is what the engineer asked to copy; no private key leaves the core
  // (test/core/bank/fresh-session.test.ts).
  'bank.freshSession',
  'sandbox.onboard',
  'sandbox.updateCounterparty',
  'sandbox.signIn',
  'sandbox.notify',
  'sandbox.rotateKey',
  'sandbox.updateSettings',
  'sandbox.deleteCounterparty',
  'tunnel.setPublicUrl',
  'tunnel.start',
  'tunnel.stop',
  'tunnel.saveSsh',
  'tunnel.trustHostKey',
  'tunnel.unpinHostKey',
  'tunnel.probe',
  'vault.unlock',
  'vault.createPassphrase',
  'keys.generate',
  'keys.import',
  'keys.addExternal',
  'keys.update',
  'keys.delete',
  'jwt.sign',
  'env.save',
  'env.remove',
  'env.activate',
  'service.authenticate',
  'service.registerJwk',
  'service.updateJwk',
  'service.rotate',
  'events.setRetention',
  'events.requestRecovery',
  'bank.saveCustomer',
  'bank.removeCustomer',
  'bank.importCustomers',
  'bank.setBehaviours',
  'bank.setForward',
  'bank.setNotifyPrefix',
  'bank.setServiceJwksUrl',
  'bank.recheck',
  'bank.replay',
  'walkthrough.run',
  'walkthrough.reset',
  'conformance.run',
  'conformance.runNotify',
  'conformance.selfCheck',
  'conformance.trustRunnerJwks',
  'scenario.save',
  'scenario.run',
]);

describe('no secret in any answer the page reads', () => {
  it('sorts every method of the contract table into reads or actions', () => {
    const unsorted = METHOD_NAMES.filter((m) => !(m in READS) && !ACTIONS.has(m));
    expect(unsorted, 'add each new method to READS (with sample arguments) or ACTIONS').toEqual([]);
  });

  it('has events of every kind to read, and the secret really is stored', async () => {
    const kinds = new Set(
      ((await call('events.query', { limit: 10_000 })) as { events: Array<{ kind: string }> }).events.map(
        (e) => e.kind,
      ),
    );
    expect([...kinds].sort()).toEqual(['callback', 'exchange', 'notification', 'trace']);
    expect((await (await core.bank()).exportCustomers()).map((c) => c.key)).toContain(SECRET);
  });

  it.each(Object.keys(READS) as MethodName[])(
    '%s carries no secret key and no private key',
    async (method) => {
      const inputs = READS[method]!();
      expect(inputs.length).toBeGreaterThan(0);
      for (const input of inputs) {
        const text = JSON.stringify(await call(method, input));
        expect(leaks(text), `${method}(${JSON.stringify(input)})`).toEqual([]);
      }
    },
  );

  it('the actions run to set the scene answered without a secret too', () => {
    for (const [method, value] of actionAnswers) expect(leaks(JSON.stringify(value)), method).toEqual([]);
  });

  it('serves customers with their keys once, as an attachment, only with the access token', async () => {
    const prepared = (await call('bank.exportCustomersWithKeys', {
      confirm: EXPORT_WITH_KEYS_CONFIRMATION,
    })) as {
      path: string;
      filename: string;
      count: number;
    };
    expect(prepared.path.startsWith(TRANSPORT.downloadPathPrefix)).toBe(true);
    expect(prepared.count).toBe(1);

    const anonymous = await request({ port: server.port, path: prepared.path });
    expect(anonymous.status).toBe(401);

    const file = await request({
      port: server.port,
      path: prepared.path,
      headers: { [TRANSPORT.tokenHeader]: server.token },
    });
    expect(file.status).toBe(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${prepared.filename}"`);
    expect(file.headers['cache-control']).toBe('no-store');
    const customers = file.json() as Array<{ obj: string; key: string }>;
    expect(customers.find((c) => c.obj === OBJ)?.key).toBe(SECRET);

    const again = await request({
      port: server.port,
      path: prepared.path,
      headers: { [TRANSPORT.tokenHeader]: server.token },
    });
    expect(again.status).toBe(404);
    expect(again.text).not.toContain(SECRET);
  });

  it('refuses the export with keys without the confirmation phrase', async () => {
    await expect(call('bank.exportCustomersWithKeys', { confirm: 'yes' })).rejects.toThrow(/confirm/);
    await expect(call('bank.exportCustomersWithKeys')).rejects.toThrow(/argument/);
  });
});
